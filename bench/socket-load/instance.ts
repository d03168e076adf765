/**
 * One lnswap instance for the socket load bench, in its own process so its memory is measured alone: the real
 * service (`startService`) on the given store, plus the mover that makes the order moves a chain watcher would
 * make, through the service's own transitions. Started by fork() from bench/socket-load/run.ts.
 *
 *   node --import tsx bench/socket-load/instance.ts <database-url> <quote-deadline-ms>
 */
import { pino } from 'pino';
import { issueProviderCredential } from '../../src/engine/operations/credentials.js';
import { startService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import { benchConfiguration } from '../dataset/configuration.js';
import { withCommitClock } from './commit-clock.js';
import type { InstanceMessage, ProviderKeysMessage, StartMoving } from './messages.js';
import { moveOrders } from './mover.js';
import { payoutAddressOfProvider } from './payout-addresses.js';

export const PROVIDER_NAMES = ['maker-a', 'maker-b', 'maker-c'] as const;

/** No flood limit in the way of the measured rates: the bench measures capacity, not the limits (test/ws covers those). */
const UNLIMITED = { burst: 1_000_000_000, perSecond: 1_000_000_000 };

function send(message: InstanceMessage): void {
  process.send!(message);
}

async function main(): Promise<void> {
  const [databaseUrl, quoteDeadlineMs] = [process.argv[2], Number(process.argv[3])];
  if (databaseUrl === undefined || !Number.isSafeInteger(quoteDeadlineMs)) {
    throw new Error('usage: instance.ts <database-url> <quote-deadline-ms>');
  }
  const opened = await openStore(databaseUrl);
  const { markets, chains } = benchConfiguration();
  await opened.importAtomically((session) =>
    session.writeConfiguration({ markets, chains, providers: [], tokens: [] }),
  );
  const providers: ProviderKeysMessage[] = [];
  for (const [index, name] of PROVIDER_NAMES.entries()) {
    const issued = await issueProviderCredential(name, Date.now());
    await opened.addProviderCredential({ ...issued.credential, ethereumPayoutAddress: payoutAddressOfProvider(index) });
    providers.push({ name, apiKey: issued.credential.apiKey, secretKey: issued.secretKey });
  }
  const { store, commits } = withCommitClock(opened);
  const service = await startService({
    store,
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'warn' }, pino.destination(2)),
    databaseUrl,
    // Every order the quote load creates stays live while the subscribers follow it.
    engine: { quoteDeadlineMs, maxSwapsInFlight: 1_000_000 },
    sockets: {
      // Each load client says which address it stands for, as a load balancer would (X-Forwarded-For).
      trustProxy: 1,
      quoteRequestsPerConnection: UNLIMITED,
      quoteRequestsPerAddress: UNLIMITED,
      eventsPerConnection: UNLIMITED,
      eventsPerAddress: UNLIMITED,
    },
  });
  send({ type: 'ready', url: service.url, providers });

  process.on('message', (message: StartMoving) => {
    void moveOrders(service.transitions, message.orders, message.seconds).then((counts) => {
      const flat = [...commits].flatMap(([key, at]) => {
        const [orderId, sequence] = key.split(':') as [string, string];
        return [orderId, Number(sequence), at];
      });
      send({ type: 'moved', commits: flat, ...counts });
      commits.clear();
    });
  });
  // The bench that started this process is gone: nothing will stop it otherwise.
  process.on('disconnect', () => process.exit(1));
  process.on('SIGTERM', () => {
    void service
      .close()
      .then(() => opened.close())
      .then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[socket-load instance] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
