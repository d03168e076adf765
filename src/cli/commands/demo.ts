import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { OrderRecord } from '../../domain/order.js';
import type { Store } from '../../store/store.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import { demoBanner, pickDemoExamples } from '../demo-examples.js';
import { createLogger } from '../logger.js';
import { packageRoot } from '../package-root.js';
import { DEFAULT_HOST, DEFAULT_PORT, hostFrom, portFrom } from '../settings.js';

const DEMO_DATABASE_PATH = './data/demo.sqlite';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'serve a fresh database loaded with the demo snapshot',
  help: `Usage: lnswap demo [--port N] [--host H]

Recreates ${DEMO_DATABASE_PATH} (relative to the current directory), imports the demo snapshot
shipped with lnswap, serves the API and prints curl lines to try. Stops on Ctrl+C.

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
    const [{ openStore }, { importSnapshot }, { serveUntilShutdown }] = await Promise.all([
      import('../../store/open.js'),
      import('../../snapshot/import-snapshot.js'),
      import('../serve-until-shutdown.js'),
    ]);
    const logger = createLogger(context.env, 'warn');

    // WAL mode keeps two companion files; a fresh database means none of them survive.
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${DEMO_DATABASE_PATH}${suffix}`, { force: true })));
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
    await serveUntilShutdown({ store, host, port, logger }, (url) => context.stdout.write(demoBanner(url, examples)));
    return 0;
  },
};

async function allOrders(store: Store): Promise<OrderRecord[]> {
  const orders: OrderRecord[] = [];
  for await (const order of store.streamOrders()) orders.push(order);
  return orders;
}
