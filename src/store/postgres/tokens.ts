import type { TokenStore } from '../store.js';
import { writeAndNotify, type PostgresContext } from './context.js';
import { APPEND_MARKET, APPEND_TOKEN } from './queries.js';

export function postgresTokens(context: PostgresContext): TokenStore {
  return {
    addToken: (token, market) =>
      writeAndNotify(context, { kind: 'configuration' }, async (client) => {
        // Two adds at once would read the same last position: the lock makes the second wait for the first.
        await client.query('LOCK TABLE tokens, markets IN SHARE ROW EXCLUSIVE MODE');
        await client.query({ ...APPEND_TOKEN, values: [token.ticker, token.network, token.address, token.decimals] });
        await client.query({ ...APPEND_MARKET, values: [market] });
      }),
  };
}
