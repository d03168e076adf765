import { parseArgumentAndDatabase, type Command } from '../command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from '../settings.js';
import { UsageError } from '../usage-error.js';

export const historyCommand: Command = {
  name: 'history',
  summary: "print an order's states and why it moved",
  help: `Usage: lnswap history ORDER_ID [--db URL]

Prints the states an order passed through, oldest first, one line each: when it entered the state,
the state, and why it moved (the request, timer or chain event recorded with the move). Exit code 1
when no order has that id.

Options:
  --db URL     database (env DATABASE_URL or DATABASE_URL_FILE, default ${DEFAULT_DATABASE_URL})
  -h, --help   show this help
`,
  async run(args, context) {
    const parsed = parseArgumentAndDatabase(historyCommand, args, context, 'ORDER_ID');
    if (parsed === undefined) return 0;
    const rawId = parsed.argument;
    const [{ normalizeOrderId }, { describeCause }, { ORDER_STATES }, { openStore }] = await Promise.all([
      import('../../domain/order-ids.js'),
      import('../../domain/transition-cause-text.js'),
      import('../../domain/states.js'),
      import('../../store/open.js'),
    ]);
    const orderId = normalizeOrderId(rawId);
    if (orderId === undefined) throw new UsageError(`"${rawId}" is not an order id (a UUID)`);
    const databaseUrl = databaseUrlFrom(parsed.db, context);

    const store = await openStore(databaseUrl);
    try {
      const history = await store.getOrderHistory(orderId);
      if (history.length === 0) throw new Error(`no order ${orderId}`);
      const stateWidth = Math.max(...ORDER_STATES.map((state) => state.length));
      for (const { state, at, cause } of history) {
        context.stdout.write(`${new Date(at).toISOString()}  ${state.padEnd(stateWidth)}  ${describeCause(cause)}\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
