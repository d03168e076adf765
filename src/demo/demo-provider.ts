import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { openLightningBackend } from '../provider/config/open-lightning-backend.js';
import { parseProviderConfig } from '../provider/config/provider-config.js';
import { startProviderDaemon, type ProviderDaemon } from '../provider/daemon/provider-daemon.js';
import { daemonLogLines } from './daemon-log-lines.js';
import type { DemoProviderAccount } from './ethereum/local-chain.js';
import type { SimulatedLightningPayee } from './lightning/simulated-lightning-payee.js';
import { startSimulatedLndNode } from './lightning/simulated-lnd-node.js';
import type { StepPrinter } from './step-printer.js';

/** The loop goes round this often: a won order is noticed, paid and claimed within a block or two. */
const POLL_INTERVAL_MS = 250;

export interface DemoProviderSettings {
  readonly name: string;
  readonly apiKey: string;
  readonly secretKey: string;
  readonly serviceUrl: string;
  readonly rpcUrl: string;
  readonly account: DemoProviderAccount;
  /** Its configuration file's content (docs/provider.md), but for the Lightning node the demo starts. */
  readonly config: Record<string, unknown>;
  /** Where its configuration, node credentials and state file are written. */
  readonly directory: string;
  readonly payee: SimulatedLightningPayee;
  readonly printer: StepPrinter;
}

export interface DemoProvider {
  readonly daemon: ProviderDaemon;
  /** What `lnswap provider` would be given to run the same daemon. */
  readonly command: string;
  close(): Promise<void>;
}

/**
 * One liquidity provider of the demo, run as an operator runs `lnswap provider`: its own simulated LND node (the
 * one simulated part: its payments reach the demo's payee, no Lightning network), whose tls.cert and macaroon are
 * written to files that its configuration file names, and the real provider daemon started on that file, the
 * payout key and the credentials the operator issued. The daemon's log lines are printed as the demo's steps.
 */
export async function startDemoProvider(settings: DemoProviderSettings): Promise<DemoProvider> {
  const node = await startSimulatedLndNode(settings.payee);
  try {
    await mkdir(settings.directory, { recursive: true });
    const tlsCertFile = join(settings.directory, 'tls.cert');
    const macaroonFile = join(settings.directory, 'admin.macaroon');
    const configFile = join(settings.directory, 'provider.json');
    await writeFile(tlsCertFile, node.certificatePem);
    await writeFile(macaroonFile, node.macaroon, { mode: 0o600 });
    await writeFile(
      configFile,
      JSON.stringify(
        { lightning: { kind: 'lnd', url: node.url, macaroonFile, tlsCertFile }, ...settings.config },
        null,
        2,
      ) + '\n',
    );
    const daemon = await startConfiguredDaemon(settings, configFile);
    return {
      daemon,
      command: equivalentCommand(settings, configFile),
      async close() {
        await daemon.close();
        await node.close();
      },
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

/** As `lnswap provider` starts on the same file: the configuration checked, its Lightning node's files read. */
async function startConfiguredDaemon(settings: DemoProviderSettings, configFile: string): Promise<ProviderDaemon> {
  const file = parseProviderConfig(JSON.parse(await readFile(configFile, 'utf8')) as unknown);
  return startProviderDaemon(
    {
      serviceUrl: settings.serviceUrl,
      credentials: { apiKey: settings.apiKey, secretKey: settings.secretKey },
      stateFile: stateFileIn(settings.directory),
      pollIntervalMs: POLL_INTERVAL_MS,
      probes: { host: '127.0.0.1', port: 0 },
      file,
      ethereum: { rpcUrl: settings.rpcUrl, payoutKey: settings.account.payoutKey },
    },
    {
      logger: pino({ level: 'info', base: undefined }, daemonLogLines(settings.name, settings.printer)),
      lightning: openLightningBackend(file.lightning),
    },
  );
}

const stateFileIn = (directory: string) => join(directory, 'state.sqlite');

/** The command an operator would type to run this provider, its secrets left in their variables. */
export function equivalentCommand(settings: DemoProviderSettings, configFile: string): string {
  return [
    'lnswap provider',
    `--config ${configFile}`,
    `--service-url ${settings.serviceUrl}`,
    `--ethereum-rpc ${settings.rpcUrl}`,
    `--state ${stateFileIn(settings.directory)}`,
    '--metrics-port 0',
    `--poll-interval-ms ${POLL_INTERVAL_MS}`,
  ].join(' ');
}
