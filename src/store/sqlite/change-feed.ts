import type { Database } from 'better-sqlite3';
import { ChangeListeners, type ChangeFeed, type StoreChange, type StoreChangeListener } from '../change-feed.js';

/**
 * This connection's own writes are reported by the store as they commit. Other processes' commits
 * (an `lnswap import` or `lnswap providers` next to a running server) show up as a new
 * `PRAGMA data_version`, which SQLite bumps for every commit made through another connection; it
 * cannot say what changed, so they are reported as `anything`. The check is made once per turn of
 * the event loop: the requests read in one turn arrived together, and checking for each of them
 * cost a twelfth of a cached answer's time.
 */
export class SqliteChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();
  private readonly readDataVersion: () => number;
  private seenDataVersion: number;
  private checkedThisTurn = false;
  private readonly endTurn = () => {
    this.checkedThisTurn = false;
  };

  constructor(private readonly db: Database) {
    const statement = db.prepare('PRAGMA data_version').pluck();
    this.readDataVersion = () => statement.get() as number;
    this.seenDataVersion = this.readDataVersion();
  }

  subscribe(listener: StoreChangeListener): () => void {
    return this.listeners.add(listener);
  }

  isCurrent(): boolean {
    if (!this.db.open) return false;
    if (this.checkedThisTurn) return true;
    this.checkedThisTurn = true;
    setImmediate(this.endTurn);
    const dataVersion = this.readDataVersion();
    if (dataVersion !== this.seenDataVersion) {
      this.seenDataVersion = dataVersion;
      this.listeners.emit({ kind: 'anything' });
    }
    return true;
  }

  report(change: StoreChange): void {
    this.listeners.emit(change);
  }
}
