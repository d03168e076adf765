import { explainLiveOrderConflicts, LIVE_ORDER_INDEX, LIVE_ORDER_STATE_LIST } from './live-orders.js';
import type { Migration } from './migration.js';

// Keys compare byte-wise (COLLATE "C") so orderings match SQLite's whatever the database locale.
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE markets (
        position INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
      );

      CREATE TABLE chain_views (
        chain TEXT PRIMARY KEY CHECK (chain IN ('bitcoin', 'ethereum')),
        block_height BIGINT NOT NULL,
        fee_tokens_per_virtual_byte DOUBLE PRECISION,
        swap_contract_address TEXT,
        CHECK ((chain = 'bitcoin') = (fee_tokens_per_virtual_byte IS NOT NULL)),
        CHECK ((chain = 'ethereum') = (swap_contract_address IS NOT NULL))
      );

      CREATE TABLE providers (
        id TEXT COLLATE "C" PRIMARY KEY,
        active BOOLEAN NOT NULL
      );

      CREATE TABLE provider_markets (
        provider_id TEXT COLLATE "C" NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
        market TEXT NOT NULL,
        position INTEGER NOT NULL,
        min_expiration_seconds NUMERIC(78, 0) NOT NULL,
        min_base_units NUMERIC(78, 0) NOT NULL,
        max_base_units NUMERIC(78, 0) NOT NULL,
        PRIMARY KEY (provider_id, market)
      );

      CREATE TABLE orders (
        id TEXT COLLATE "C" PRIMARY KEY,
        market TEXT NOT NULL,
        onchain_ticker TEXT NOT NULL,
        invoice TEXT NOT NULL,
        invoice_hash TEXT NOT NULL,
        payment_hash TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        state TEXT NOT NULL,
        amount NUMERIC(78, 0) NOT NULL,
        pay_to_address TEXT NOT NULL,
        payment_preimage TEXT,
        refund_address TEXT,
        htlc_redeem_script TEXT,
        htlc_refundable_at_block_height BIGINT NOT NULL
      );
      CREATE INDEX orders_by_invoice_hash ON orders (invoice_hash, created_at DESC, id DESC);
      CREATE INDEX orders_by_payment_hash ON orders (payment_hash);
      CREATE INDEX orders_by_state_expiry ON orders (state, expires_at);
      CREATE INDEX orders_by_creation ON orders (created_at, id);

      CREATE TABLE order_transactions (
        order_id TEXT COLLATE "C" NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('FUND', 'REFUND')),
        tx_id TEXT NOT NULL,
        amount NUMERIC(78, 0),
        output_index INTEGER,
        block_height BIGINT,
        PRIMARY KEY (order_id, seq)
      );

      CREATE TABLE order_state_history (
        order_id TEXT COLLATE "C" NOT NULL REFERENCES orders (id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (order_id, seq)
      );
      CREATE FUNCTION refuse_order_state_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'order_state_history is append-only';
      END
      $$;
      CREATE TRIGGER order_state_history_append_only BEFORE UPDATE OR DELETE ON order_state_history
      FOR EACH ROW EXECUTE FUNCTION refuse_order_state_history_change();

      CREATE TABLE provider_credentials (
        name TEXT COLLATE "C" PRIMARY KEY,
        api_key TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      );
    `,
  },
  {
    version: 2,
    name: 'history rows say why',
    // NULL on rows written before, and on imported rows.
    sql: `
      ALTER TABLE order_state_history ADD COLUMN cause JSONB;
    `,
  },
  {
    version: 3,
    name: 'one live order per payment hash',
    refuseWhen: {
      query: `
        SELECT payment_hash, string_agg(id || ' (' || state || ')', ', ' ORDER BY created_at, id) AS orders
        FROM orders WHERE state IN (${LIVE_ORDER_STATE_LIST})
        GROUP BY payment_hash HAVING count(*) > 1 ORDER BY payment_hash LIMIT 10`,
      explain: explainLiveOrderConflicts,
    },
    sql: `CREATE UNIQUE INDEX ${LIVE_ORDER_INDEX} ON orders (payment_hash) WHERE state IN (${LIVE_ORDER_STATE_LIST});`,
  },
  {
    version: 4,
    name: 'chain watcher: cursor, recent blocks and observations per chain',
    // Observations are keyed by block hash and position in the block: a block seen twice adds nothing, and
    // a reorg drops the observations above its fork point by height.
    sql: `
      CREATE TABLE chain_cursors (
        chain TEXT PRIMARY KEY CHECK (chain IN ('bitcoin', 'ethereum')),
        start_height BIGINT NOT NULL,
        height BIGINT NOT NULL,
        hash TEXT NOT NULL
      );

      CREATE TABLE chain_blocks (
        chain TEXT NOT NULL,
        height BIGINT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (chain, height)
      );

      CREATE TABLE chain_observations (
        chain TEXT NOT NULL,
        block_hash TEXT NOT NULL,
        position INTEGER NOT NULL,
        block_height BIGINT NOT NULL,
        order_id TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('funding', 'claim', 'refund')),
        tx_id TEXT NOT NULL,
        amount NUMERIC(78, 0),
        output_index INTEGER,
        refund_height BIGINT,
        preimage TEXT,
        by_admin BOOLEAN,
        PRIMARY KEY (chain, block_hash, position)
      );
      CREATE INDEX chain_observations_by_order ON chain_observations (order_id, block_height, position);
      CREATE INDEX chain_observations_by_height ON chain_observations (chain, block_height);
    `,
  },
  {
    version: 5,
    name: 'rate limits counted across instances',
    // Unlogged: a bucket is worth no WAL, and a crash that empties the table only hands out fresh bursts.
    sql: `
      CREATE UNLOGGED TABLE rate_limit_buckets (
        key TEXT COLLATE "C" PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        updated_at_ms BIGINT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'orders carry their transaction list',
    // A read of an order ran a correlated subquery per order: an index walk over order_transactions and an
    // ordered aggregate, more than half of what PostgreSQL spent on a cold read by id. The list, as order reads
    // return it (a JSON array of [type, tx_id, amount, output_index, block_height] in seq order), now also sits
    // on the order's row, written with it. order_transactions stays, for the writes that match a transaction by
    // its id. A constant default adds the column without rewriting the table.
    sql: `
      ALTER TABLE orders ADD COLUMN transactions JSON NOT NULL DEFAULT '[]';
      UPDATE orders o SET transactions = (
        SELECT json_agg(json_build_array(t.type, t.tx_id, t.amount::text, t.output_index, t.block_height) ORDER BY t.seq)
        FROM order_transactions t WHERE t.order_id = o.id)
      WHERE o.id IN (SELECT order_id FROM order_transactions);
    `,
  },
  {
    version: 7,
    name: 'orders name their provider and claimer; credentials name their Ethereum payout address',
    // NULL where unknown: orders created before, imported orders without them, Bitcoin orders (no claimer), and
    // credentials issued without a payout address (such a provider cannot win Ethereum markets).
    sql: `
      ALTER TABLE orders ADD COLUMN provider_id TEXT;
      ALTER TABLE orders ADD COLUMN claim_address TEXT;
      ALTER TABLE provider_credentials ADD COLUMN ethereum_payout_address TEXT;
    `,
  },
  {
    version: 8,
    name: 'chain observations name their Ethereum slot and its terms',
    // The slot an Ethereum observation concerns (the contract keeps money per order and funder) and, on fundings,
    // the slot's terms: the watcher counts a slot only when they are the order's. NULL on Bitcoin observations
    // and on rows written before; a funding without terms counts toward no order.
    sql: `
      ALTER TABLE chain_observations ADD COLUMN funder TEXT;
      ALTER TABLE chain_observations ADD COLUMN claimer TEXT;
      ALTER TABLE chain_observations ADD COLUMN token TEXT;
      ALTER TABLE chain_observations ADD COLUMN payment_hash TEXT;
    `,
  },
  {
    version: 9,
    name: 'configured ERC-20 tokens',
    // A token's market is named from its ticker and network, so the table holds the token alone; position keeps
    // the operator's order, which export writes back unchanged.
    sql: `
      CREATE TABLE tokens (
        position INTEGER PRIMARY KEY,
        ticker TEXT COLLATE "C" NOT NULL UNIQUE,
        network TEXT NOT NULL CHECK (network IN ('mainnet', 'testnet', 'simnet')),
        address TEXT NOT NULL,
        decimals INTEGER NOT NULL CHECK (decimals >= 0),
        UNIQUE (network, address)
      );
    `,
  },
  {
    version: 10,
    name: 'every swap contract the service has used, with its version',
    // Orders made on an earlier contract stay watched and answer with it after new quotes move to another. The
    // contract in use before the history was kept is the second version, in use since before anything (0).
    sql: `
      CREATE TABLE swap_contracts (
        address TEXT COLLATE "C" PRIMARY KEY,
        version INTEGER NOT NULL CHECK (version IN (2, 3)),
        since BIGINT NOT NULL
      );
      INSERT INTO swap_contracts (address, version, since)
        SELECT lower(swap_contract_address), 2, 0 FROM chain_views WHERE chain = 'ethereum';
    `,
  },
  {
    version: 11,
    name: 'cooperative refunds the winning provider signed',
    // One signature per slot (order, funder): the claimer's EIP-712 cooperative refund of the third swap contract,
    // which anyone may send to pay the funder back at once. Kept with the order, gone with it.
    sql: `
      CREATE TABLE cooperative_refunds (
        order_id TEXT COLLATE "C" NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        funder TEXT COLLATE "C" NOT NULL,
        signature TEXT NOT NULL,
        PRIMARY KEY (order_id, funder)
      );
    `,
  },
];
