import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ANVIL_PACKAGE } from '../../demo/ethereum/anvil-binary.js';
import type { OrderRecord } from '../../domain/order.js';
import type { Store } from '../../store/store.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import { demoBanner, pickDemoExamples } from '../../demo/demo-examples.js';
import { createLogger } from '../logger.js';
import { packageRoot } from '../package-root.js';
import { DEFAULT_HOST, DEFAULT_PORT, hostFrom, portFrom } from '../settings.js';
import { shutdownRequested } from '../shutdown.js';

const DEMO_DATABASE_PATH = './data/demo.sqlite';
/** Each demo provider's configuration file, node credentials and state file, under its name. */
const DEMO_PROVIDERS_DIRECTORY = './data/demo-providers';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'serve the demo snapshot and run live swaps on a local Anvil',
  help: `Usage: lnswap demo [--port N] [--host H]

Recreates ${DEMO_DATABASE_PATH} (relative to the current directory), imports the demo snapshot
shipped with lnswap, serves the API and prints curl lines to try. Then, on a local Anvil (the
optional npm dependency ${ANVIL_PACKAGE}, or the executable named by env ANVIL_BINARY) with the
swap contract and a demo ERC-20 token (SUSDC) deployed, it runs real swaps in the background: two
providers, maker-ada and maker-bo, each the real provider daemon (as \`lnswap provider\` runs it)
with its files in ${DEMO_PROVIDERS_DIRECTORY}/NAME/, pay the invoices through SIMULATED Lightning
nodes that settle them at a simulated payee, and claim; one swap pays in SUSDC_LSBTC, one is
refunded. It prints each order's steps as they happen, the daemons' own log lines, each payment
the payee receives and each claim with the payout's balance. Without Anvil it serves the snapshot
alone and says why. Stops on Ctrl+C.

Options:
  --port N     TCP port, 0 for any free one (env PORT, default ${DEFAULT_PORT})
  --host H     address to listen on (env HOST, default ${DEFAULT_HOST})
  -h, --help   show this help

Only warnings are logged unless LOG_LEVEL says otherwise, so the printed lines stay readable.
`,
  async run(args, context) {
    const { values } = parseCommandArgs({
      args: [...args],
      options: { port: { type: 'string' }, host: { type: 'string' }, ...HELP_OPTION },
    });
    if (values.help) return printHelp(demoCommand, context);
    const port = portFrom(values.port, context.env);
    const host = hostFrom(values.host, context.env);
    const [
      { openStore },
      { importSnapshot },
      { startService },
      { prepareLiveDemo, startLiveSwaps },
      { LocalChainUnavailable },
    ] = await Promise.all([
      import('../../store/open.js'),
      import('../../snapshot/import-snapshot.js'),
      import('../../service.js'),
      import('../../demo/live-demo.js'),
      import('../../demo/ethereum/local-chain.js'),
    ]);
    const logger = createLogger(context.env, 'warn');

    // WAL mode keeps two companion files; a fresh database means none of them survive.
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${DEMO_DATABASE_PATH}${suffix}`, { force: true })));
    // The providers' state belongs to the orders of the database just deleted.
    await rm(DEMO_PROVIDERS_DIRECTORY, { recursive: true, force: true });
    const store = await openStore(`sqlite:${DEMO_DATABASE_PATH}`);
    let orders: OrderRecord[];
    try {
      await importSnapshot(store, createReadStream(join(packageRoot(), 'demo', 'snapshot.json')));
      orders = await allOrders(store);
    } catch (error) {
      await store.close();
      throw error;
    }
    const examples = pickDemoExamples(orders);
    const shutdown = shutdownRequested(logger);

    const live = await prepareLiveDemo(store, context.env).catch(async (error: unknown) => {
      if (!(error instanceof LocalChainUnavailable)) {
        await store.close();
        throw error;
      }
      context.stdout.write(liveSwapsOff(error.message));
      return undefined;
    });
    let service;
    try {
      service = await startService({ store, host, port, logger, ...live?.service });
    } catch (error) {
      await live?.chain.stop();
      await store.close();
      throw error;
    }
    context.stdout.write(demoBanner(service.url, examples));
    const swaps =
      live === undefined
        ? undefined
        : await startLiveSwaps(service.url, live, DEMO_PROVIDERS_DIRECTORY, (text) => context.stdout.write(text)).catch(
            (error: unknown) => {
              context.stdout.write(liveSwapsOff(`the demo providers could not start: ${String(error)}`));
              return undefined;
            },
          );
    await shutdown;
    await swaps?.stop();
    await service.close();
    await live?.chain.stop();
    await store.close();
    return 0;
  },
};

/** One loud line, whatever the reason's own line breaks (Anvil's output may have some). */
function liveSwapsOff(reason: string): string {
  return `\n*** LIVE SWAPS OFF: ${reason.replace(/\s+/g, ' ').trim()}. Serving the static demo only. ***\n\n`;
}

async function allOrders(store: Store): Promise<OrderRecord[]> {
  const orders: OrderRecord[] = [];
  for await (const order of store.streamOrders()) orders.push(order);
  return orders;
}
