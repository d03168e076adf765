/** The local PostgreSQL cluster, for the `*.exclusive.test.ts` files that stop and start it. */
import { execFileSync } from 'node:child_process';
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

export function pgCluster(action: 'start' | 'stop' | 'restart'): void {
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', CLUSTER_VERSION!, 'main', action], { stdio: 'ignore' });
}

export function postgresIsRunning(): boolean {
  return /\bonline\b/.test(execFileSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' }));
}
