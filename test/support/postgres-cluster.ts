/** The local PostgreSQL cluster, for the `*.exclusive.test.ts` files that stop and start it. */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync } from 'node:fs';

const CLUSTER_VERSION = (() => {
  try {
    return readdirSync('/etc/postgresql', { withFileTypes: true }).find((entry) => entry.isDirectory())?.name;
  } catch {
    return undefined;
  }
})();

/** Why the cluster cannot be stopped and started here, or false when it can. */
export const noLocalCluster: string | false = CLUSTER_VERSION === undefined && 'no local PostgreSQL cluster to restart';

/**
 * Waits for `pg_ctlcluster` without blocking the event loop: the services a test runs in its own process keep
 * answering while the cluster stops and starts, as they would in their own processes (a blocked loop held a
 * request's answer for as long as PostgreSQL took to stop or start).
 */
export async function pgCluster(action: 'start' | 'stop' | 'restart'): Promise<void> {
  await promisify(execFile)('pg_ctlcluster', ['--skip-systemctl-redirect', CLUSTER_VERSION!, 'main', action]);
}

export function postgresIsRunning(): boolean {
  return /\bonline\b/.test(execFileSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' }));
}
