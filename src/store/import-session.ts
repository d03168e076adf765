import type { ImportSession } from './store.js';

/**
 * Wraps an import's writes so they refuse to run once the import has ended: a session kept past its
 * transaction would otherwise write outside it.
 */
export function openImportSession(writes: ImportSession): { session: ImportSession; end(): void } {
  let open = true;
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
        await writes.writeOrders(orders);
      },
    },
    end() {
      open = false;
    },
  };
}
