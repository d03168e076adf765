import { openPostgresLeadership } from './postgres/leadership.js';
import { parsePostgresUrl } from './postgres/connection-url.js';

/**
 * Who of the instances sharing one database does a job only one of them may do at a time, such as
 * watching a chain. The lead can be lost at any moment (a dropped connection); listeners hear of it
 * and must stop the job.
 */
export interface Leadership {
  /** True while this instance holds the lead. */
  readonly leading: boolean;
  /** Calls `listener(true)` when the lead is won and `listener(false)` when it is lost; returns the unsubscribe. */
  onChange(listener: (leading: boolean) => void): () => void;
  /** Gives the lead up (another instance may take it at once) and stops trying to win it. */
  close(): Promise<void>;
}

export interface LeadershipOptions {
  /** How often an instance without the lead tries to win it, and to reconnect after losing it. */
  readonly retryIntervalMs: number;
  /** How often the leader checks that its connection (and so its lock) is still alive. */
  readonly keepAliveIntervalMs: number;
}

export const DEFAULT_LEADERSHIP_OPTIONS: LeadershipOptions = { retryIntervalMs: 2_000, keepAliveIntervalMs: 2_000 };

/**
 * The lead named `name` among the instances on the database at `databaseUrl`: on PostgreSQL a
 * session-level advisory lock, scoped to the URL's schema; on SQLite the one process that opens it leads.
 */
export function openLeadership(
  databaseUrl: string,
  name: string,
  options: Partial<LeadershipOptions> = {},
): Leadership {
  const resolved = { ...DEFAULT_LEADERSHIP_OPTIONS, ...options };
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    return openPostgresLeadership(parsePostgresUrl(databaseUrl), name, resolved);
  }
  return new SoleLeadership();
}

/** A database only one process serves: that process leads from the start until it closes. */
export class SoleLeadership implements Leadership {
  private closed = false;
  private readonly listeners = new Set<(leading: boolean) => void>();

  get leading(): boolean {
    return !this.closed;
  }

  onChange(listener: (leading: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.listeners) listener(false);
  }
}
