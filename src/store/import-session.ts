import type { ImportSession } from './store.js';

/**
 * Wraps an import's writes so they refuse to run once the import has ended (a session kept past its
 * transaction would otherwise write outside it), and orders once the import said it has finished them.
 */
export function openImportSession(writes: ImportSession): { session: ImportSession; end: () => void } {
  let open = true;
  let ordersFinished = false;
  const assertOpen = () => {
    if (!open) throw new Error('This import session has already ended');
  };
  return {
    session: {
      async writeConfiguration(configuration) {
        assertOpen();
        await writes.writeConfiguration(configuration);
      },
      async writeOrders(orders) {
        assertOpen();
        if (ordersFinished) throw new Error('This import has already finished writing orders');
        await writes.writeOrders(orders);
      },
      async finishOrders() {
        assertOpen();
        ordersFinished = true;
        await writes.finishOrders();
      },
    },
    end() {
      open = false;
    },
  };
}
