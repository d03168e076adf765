import type { TokenStore } from '../store.js';
import { importSettled, type SqliteContext } from './context.js';

export function sqliteTokens(context: SqliteContext): TokenStore {
  return {
    async addToken(token, market) {
      await importSettled(context);
      context.writes.addToken(token, market);
      context.changes.report({ kind: 'configuration' });
    },
  };
}
