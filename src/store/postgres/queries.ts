import { SELECT_ORDERS, STORED_ORDER_COLUMNS } from '../order-rows.js';

/** A statement pg prepares once per connection (by name) and reuses. */
export interface NamedQuery {
  readonly name: string;
  readonly text: string;
}

const named = (name: string, text: string): NamedQuery => ({ name: `lnswap-${name}`, text });

// An order's transaction list as its row keeps it (migration 6), made from `order_transactions`.
const TRANSACTION_LIST_OF_ORDER = `(SELECT coalesce(json_agg(
    json_build_array(t.type, t.tx_id, t.amount::text, t.output_index, t.block_height) ORDER BY t.seq), '[]'::json)
  FROM order_transactions t WHERE t.order_id = o.id)`;

const ORDER_COLUMN_TYPES: Record<(typeof STORED_ORDER_COLUMNS)[number], string> = {
  id: 'text',
  market: 'text',
  onchain_ticker: 'text',
  invoice: 'text',
  invoice_hash: 'text',
  payment_hash: 'text',
  created_at: 'int8',
  expires_at: 'int8',
  state: 'text',
  amount: 'numeric',
  pay_to_address: 'text',
  payment_preimage: 'text',
  refund_address: 'text',
  htlc_redeem_script: 'text',
  htlc_refundable_at_block_height: 'int8',
  transactions: 'json',
  provider_id: 'text',
  claim_address: 'text',
};

// Batches go in as one array per column: one statement of fixed text whatever the batch size.
const UNNEST_ORDERS = `SELECT * FROM unnest(${STORED_ORDER_COLUMNS.map(
  (column, index) => `$${index + 1}::${ORDER_COLUMN_TYPES[column]}[]`,
).join(', ')})`;
const ORDER_UPDATES = STORED_ORDER_COLUMNS.filter((column) => column !== 'id')
  .map((column) => `${column} = excluded.${column}`)
  .join(', ');

export const SELECT_ORDERS_BY_IDS = named('select-orders-by-ids', `${SELECT_ORDERS} WHERE o.id = ANY($1::text[])`);
// Each hash's orders newest first; the rows of different hashes may interleave.
export const SELECT_ORDERS_BY_INVOICE_HASHES = named(
  'select-orders-by-invoice-hashes',
  `${SELECT_ORDERS} WHERE o.invoice_hash = ANY($1::text[]) ORDER BY o.created_at DESC, o.id DESC`,
);
export const SELECT_ORDERS_BY_INVOICE_HASH_AND_TICKER = named(
  'select-orders-by-invoice-hash-and-ticker',
  `${SELECT_ORDERS} WHERE o.invoice_hash = $1 AND o.onchain_ticker = $2
   ORDER BY o.created_at DESC, o.id DESC`,
);
export const SELECT_ORDERS_AFTER = named(
  'select-orders-after',
  `${SELECT_ORDERS} WHERE (o.created_at, o.id) > ($1, $2) ORDER BY o.created_at, o.id LIMIT $3`,
);
export const SELECT_ORDERS_EXPIRED_IN = named(
  'select-orders-expired-in',
  `${SELECT_ORDERS} WHERE o.state = $1 AND o.expires_at <= $2 ORDER BY o.expires_at, o.id`,
);
export const SELECT_STATES_BY_PAYMENT_HASH = named(
  'select-states-by-payment-hash',
  'SELECT id, state FROM orders WHERE payment_hash = $1',
);
export const SELECT_ORDERS_BY_PAYMENT_HASH = named(
  'select-orders-by-payment-hash',
  `${SELECT_ORDERS} WHERE o.payment_hash = $1 AND o.state = ANY($2::text[])
   ORDER BY o.created_at, o.id`,
);
export const COUNT_ORDERS_IN_STATES = named(
  'count-orders-in-states',
  'SELECT count(*) AS count FROM orders WHERE state = ANY($1::text[])',
);
export const SELECT_ORDER_STATES_FOR_UPDATE = named(
  'select-order-states-for-update',
  'SELECT id, state FROM orders WHERE id = ANY($1::text[]) FOR UPDATE',
);
export const INSERT_ORDERS = named(
  'insert-orders',
  `INSERT INTO orders (${STORED_ORDER_COLUMNS.join(', ')}) ${UNNEST_ORDERS}`,
);
export const UPSERT_ORDERS = named(
  'upsert-orders',
  `INSERT INTO orders (${STORED_ORDER_COLUMNS.join(', ')}) ${UNNEST_ORDERS} ON CONFLICT (id) DO UPDATE SET ${ORDER_UPDATES}`,
);
export const MOVE_ORDER_STATE = named(
  'move-order-state',
  'UPDATE orders SET state = $1, payment_preimage = coalesce($2, payment_preimage) WHERE id = $3 AND state = $4',
);
export const DELETE_TRANSACTIONS = named(
  'delete-transactions',
  'DELETE FROM order_transactions WHERE order_id = ANY($1::text[])',
);
export const INSERT_TRANSACTIONS = named(
  'insert-transactions',
  `INSERT INTO order_transactions (order_id, seq, type, tx_id, amount, output_index, block_height)
   SELECT * FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[], $5::numeric[], $6::int4[], $7::int8[])`,
);
export const APPEND_TRANSACTION = named(
  'append-transaction',
  `INSERT INTO order_transactions (order_id, seq, type, tx_id, amount, output_index, block_height)
   SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4::numeric, $5::int4, $6::int8
   FROM order_transactions WHERE order_id = $1`,
);
// After a write to order_transactions alone: the row's list made again from the table.
export const RELIST_TRANSACTIONS = named(
  'relist-transactions',
  `UPDATE orders o SET transactions = ${TRANSACTION_LIST_OF_ORDER} WHERE o.id = $1`,
);
export const UPDATE_SAME_TRANSACTION = named(
  'update-same-transaction',
  `UPDATE order_transactions SET amount = $4::numeric, block_height = $6::int8
   WHERE order_id = $1 AND type = $2 AND tx_id = $3 AND output_index IS NOT DISTINCT FROM $5::int4`,
);
// A token bucket in one atomic upsert, timed by the database's clock so instances' clocks do not matter. The
// update (and so the returned row) happens only while a token is left.
export const TAKE_RATE_LIMIT_TOKEN = named(
  'take-rate-limit-token',
  `INSERT INTO rate_limit_buckets AS bucket (key, tokens, updated_at_ms)
   VALUES ($1, $2::float8 - 1, (extract(epoch FROM clock_timestamp()) * 1000)::int8)
   ON CONFLICT (key) DO UPDATE SET
     tokens = least($2::float8,
       bucket.tokens + greatest(0, excluded.updated_at_ms - bucket.updated_at_ms) / 1000.0 * $3::float8) - 1,
     updated_at_ms = greatest(excluded.updated_at_ms, bucket.updated_at_ms)
   WHERE least($2::float8,
     bucket.tokens + greatest(0, excluded.updated_at_ms - bucket.updated_at_ms) / 1000.0 * $3::float8) >= 1
   RETURNING 1`,
);
// Buckets untouched for an hour are full again for every limit lnswap sets: forgetting them changes nothing.
export const PRUNE_RATE_LIMIT_BUCKETS = named(
  'prune-rate-limit-buckets',
  'DELETE FROM rate_limit_buckets WHERE updated_at_ms < (extract(epoch FROM clock_timestamp()) * 1000)::int8 - 3600000',
);
export const SELECT_HISTORY_SINCE = named(
  'select-history-since',
  'SELECT seq, state, at, cause::text AS cause FROM order_state_history WHERE order_id = $1 AND seq > $2 ORDER BY seq',
);
export const INSERT_COOPERATIVE_REFUNDS = named(
  'insert-cooperative-refunds',
  `INSERT INTO cooperative_refunds (order_id, funder, signature)
   SELECT $1, funder, signature FROM unnest($2::text[], $3::text[]) AS given (funder, signature)
   ON CONFLICT (order_id, funder) DO NOTHING`,
);
export const SELECT_COOPERATIVE_REFUNDS = named(
  'select-cooperative-refunds',
  'SELECT funder, signature FROM cooperative_refunds WHERE order_id = $1 ORDER BY funder',
);
export const SELECT_HISTORY = named(
  'select-history',
  'SELECT state, at, cause::text AS cause FROM order_state_history WHERE order_id = $1 ORDER BY seq',
);
// `ordinal` numbers each order's entries within the statement, continuing after what it already has.
export const APPEND_HISTORY = named(
  'append-history',
  `INSERT INTO order_state_history (order_id, seq, state, at, cause)
   SELECT entry.order_id,
     coalesce((SELECT max(seq) FROM order_state_history h WHERE h.order_id = entry.order_id), 0) + entry.ordinal,
     entry.state, entry.at, entry.cause::jsonb
   FROM unnest($1::text[], $2::text[], $3::int8[], $4::int4[], $5::text[])
     AS entry (order_id, state, at, ordinal, cause)
   RETURNING seq`,
);

export const SELECT_MARKETS = named('select-markets', 'SELECT name FROM markets ORDER BY position');
export const DELETE_MARKETS = named('delete-markets', 'DELETE FROM markets');
export const INSERT_MARKETS = named(
  'insert-markets',
  'INSERT INTO markets (position, name) SELECT * FROM unnest($1::int4[], $2::text[])',
);
export const SELECT_TOKENS = named(
  'select-tokens',
  'SELECT ticker, network, address, decimals FROM tokens ORDER BY position',
);
export const DELETE_TOKENS = named('delete-tokens', 'DELETE FROM tokens');
export const APPEND_TOKEN = named(
  'append-token',
  `INSERT INTO tokens (position, ticker, network, address, decimals)
   SELECT coalesce(max(position), -1) + 1, $1, $2, $3, $4 FROM tokens`,
);
export const APPEND_MARKET = named(
  'append-market',
  'INSERT INTO markets (position, name) SELECT coalesce(max(position), -1) + 1, $1 FROM markets',
);
export const INSERT_TOKENS = named(
  'insert-tokens',
  `INSERT INTO tokens (position, ticker, network, address, decimals)
   SELECT * FROM unnest($1::int4[], $2::text[], $3::text[], $4::text[], $5::int4[])`,
);
export const SELECT_CHAIN_VIEWS = named('select-chain-views', 'SELECT * FROM chain_views');
export const DELETE_CHAIN_VIEWS = named('delete-chain-views', 'DELETE FROM chain_views');
export const UPSERT_CHAIN_VIEW = named(
  'upsert-chain-view',
  `INSERT INTO chain_views (chain, block_height, fee_tokens_per_virtual_byte, swap_contract_address)
   VALUES ($1, $2, $3, $4)
   ON CONFLICT (chain) DO UPDATE SET block_height = excluded.block_height,
     fee_tokens_per_virtual_byte = excluded.fee_tokens_per_virtual_byte,
     swap_contract_address = excluded.swap_contract_address`,
);
export const SELECT_SWAP_CONTRACTS = named(
  'select-swap-contracts',
  'SELECT address, version, since FROM swap_contracts',
);
export const UPSERT_SWAP_CONTRACT = named(
  'upsert-swap-contract',
  `INSERT INTO swap_contracts (address, version, since) VALUES ($1, $2, $3)
   ON CONFLICT (address) DO UPDATE SET version = excluded.version, since = excluded.since`,
);
export const ADD_UNRECORDED_SWAP_CONTRACT = named(
  'add-unrecorded-swap-contract',
  'INSERT INTO swap_contracts (address, version, since) VALUES ($1, $2, $3) ON CONFLICT (address) DO NOTHING',
);
export const SELECT_PROVIDERS = named('select-providers', 'SELECT id, active FROM providers');
export const SELECT_PROVIDER_MARKETS = named(
  'select-provider-markets',
  'SELECT * FROM provider_markets ORDER BY provider_id, position',
);
export const UPSERT_PROVIDER = named(
  'upsert-provider',
  'INSERT INTO providers (id, active) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET active = excluded.active',
);
export const SET_PROVIDER_ACTIVE = named('set-provider-active', 'UPDATE providers SET active = $1 WHERE id = $2');
export const DELETE_PROVIDER_MARKETS = named(
  'delete-provider-markets',
  'DELETE FROM provider_markets WHERE provider_id = $1',
);
export const INSERT_PROVIDER_MARKETS = named(
  'insert-provider-markets',
  `INSERT INTO provider_markets
     (provider_id, market, position, min_expiration_seconds, min_base_units, max_base_units)
   SELECT $1, * FROM unnest($2::text[], $3::int4[], $4::numeric[], $5::numeric[], $6::numeric[])`,
);

export const INSERT_CREDENTIAL = named(
  'insert-credential',
  `INSERT INTO provider_credentials (name, api_key, secret_hash, created_at, revoked_at, ethereum_payout_address)
   VALUES ($1, $2, $3, $4, $5, $6)`,
);
export const SELECT_CREDENTIAL_BY_API_KEY = named(
  'select-credential-by-api-key',
  'SELECT * FROM provider_credentials WHERE api_key = $1',
);
export const SELECT_CREDENTIALS = named('select-credentials', 'SELECT * FROM provider_credentials');
export const REVOKE_CREDENTIAL = named(
  'revoke-credential',
  'UPDATE provider_credentials SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL',
);
export const SET_PAYOUT_ADDRESS = named(
  'set-payout-address',
  'UPDATE provider_credentials SET ethereum_payout_address = $1 WHERE name = $2 AND revoked_at IS NULL',
);
export const SELECT_ORDERS_OF_TICKERS_IN_STATES = named(
  'select-orders-of-tickers-in-states',
  `${SELECT_ORDERS} WHERE o.state = ANY($1::text[]) AND o.onchain_ticker = ANY($2::text[])
   ORDER BY o.created_at, o.id`,
);
