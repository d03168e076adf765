import { explainLiveOrderConflicts, LIVE_ORDER_INDEX, LIVE_ORDER_STATE_LIST } from './live-orders.js';
import type { Migration } from './migration.js';

// Amounts are TEXT: wei amounts outgrow SQLite's 64-bit integers.
export const SQLITE_MIGRATIONS: readonly Migration[] = [
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
        block_height INTEGER NOT NULL,
        fee_tokens_per_virtual_byte REAL,
        swap_contract_address TEXT,
        CHECK ((chain = 'bitcoin') = (fee_tokens_per_virtual_byte IS NOT NULL)),
        CHECK ((chain = 'ethereum') = (swap_contract_address IS NOT NULL))
      );

      CREATE TABLE providers (
        id TEXT PRIMARY KEY,
        active INTEGER NOT NULL CHECK (active IN (0, 1))
      );

      CREATE TABLE provider_markets (
        provider_id TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
        market TEXT NOT NULL,
        position INTEGER NOT NULL,
        min_expiration_seconds TEXT NOT NULL,
        min_base_units TEXT NOT NULL,
        max_base_units TEXT NOT NULL,
        PRIMARY KEY (provider_id, market)
      ) WITHOUT ROWID;

      CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        market TEXT NOT NULL,
        onchain_ticker TEXT NOT NULL,
        invoice TEXT NOT NULL,
        invoice_hash TEXT NOT NULL,
        payment_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        state TEXT NOT NULL,
        amount TEXT NOT NULL,
        pay_to_address TEXT NOT NULL,
        payment_preimage TEXT,
        refund_address TEXT,
        htlc_redeem_script TEXT,
        htlc_refundable_at_block_height INTEGER NOT NULL
      );
      CREATE INDEX orders_by_invoice_hash ON orders (invoice_hash, created_at DESC, id DESC);
      CREATE INDEX orders_by_payment_hash ON orders (payment_hash);
      CREATE INDEX orders_by_state_expiry ON orders (state, expires_at);
      CREATE INDEX orders_by_creation ON orders (created_at, id);

      CREATE TABLE order_transactions (
        order_id TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('FUND', 'REFUND')),
        tx_id TEXT NOT NULL,
        amount TEXT,
        output_index INTEGER,
        block_height INTEGER,
        PRIMARY KEY (order_id, seq)
      ) WITHOUT ROWID;

      CREATE TABLE order_state_history (
        order_id TEXT NOT NULL REFERENCES orders (id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (order_id, seq)
      ) WITHOUT ROWID;
      CREATE TRIGGER order_state_history_no_update BEFORE UPDATE ON order_state_history
      BEGIN SELECT RAISE(ABORT, 'order_state_history is append-only'); END;
      CREATE TRIGGER order_state_history_no_delete BEFORE DELETE ON order_state_history
      BEGIN SELECT RAISE(ABORT, 'order_state_history is append-only'); END;

      CREATE TABLE provider_credentials (
        name TEXT PRIMARY KEY,
        api_key TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
    `,
  },
  {
    version: 2,
    name: 'orders keyed by an integer of their own',
    // Keyed by their UUID, orders and their transactions and history went into three B-trees at random
    // places; keyed by an integer handed out in insertion order, an import appends to all three.
    sql: `
      CREATE TABLE orders_v2 (
        internal_id INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        market TEXT NOT NULL,
        onchain_ticker TEXT NOT NULL,
        invoice TEXT NOT NULL,
        invoice_hash TEXT NOT NULL,
        payment_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        state TEXT NOT NULL,
        amount TEXT NOT NULL,
        pay_to_address TEXT NOT NULL,
        payment_preimage TEXT,
        refund_address TEXT,
        htlc_redeem_script TEXT,
        htlc_refundable_at_block_height INTEGER NOT NULL
      );
      INSERT INTO orders_v2
        SELECT rowid, id, market, onchain_ticker, invoice, invoice_hash, payment_hash, created_at, expires_at, state,
          amount, pay_to_address, payment_preimage, refund_address, htlc_redeem_script, htlc_refundable_at_block_height
        FROM orders ORDER BY rowid;

      CREATE TABLE order_transactions_v2 (
        order_internal_id INTEGER NOT NULL REFERENCES orders_v2 (internal_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('FUND', 'REFUND')),
        tx_id TEXT NOT NULL,
        amount TEXT,
        output_index INTEGER,
        block_height INTEGER,
        PRIMARY KEY (order_internal_id, seq)
      ) WITHOUT ROWID;
      INSERT INTO order_transactions_v2
        SELECT o.rowid, t.seq, t.type, t.tx_id, t.amount, t.output_index, t.block_height
        FROM order_transactions t JOIN orders o ON o.id = t.order_id;

      CREATE TABLE order_state_history_v2 (
        order_internal_id INTEGER NOT NULL REFERENCES orders_v2 (internal_id),
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (order_internal_id, seq)
      ) WITHOUT ROWID;
      INSERT INTO order_state_history_v2
        SELECT o.rowid, h.seq, h.state, h.at FROM order_state_history h JOIN orders o ON o.id = h.order_id;

      DROP TABLE order_state_history;
      DROP TABLE order_transactions;
      DROP TABLE orders;
      ALTER TABLE orders_v2 RENAME TO orders;
      ALTER TABLE order_transactions_v2 RENAME TO order_transactions;
      ALTER TABLE order_state_history_v2 RENAME TO order_state_history;

      CREATE UNIQUE INDEX orders_by_id ON orders (id);
      CREATE INDEX orders_by_invoice_hash ON orders (invoice_hash, created_at DESC, id DESC);
      CREATE INDEX orders_by_payment_hash ON orders (payment_hash);
      CREATE INDEX orders_by_state_expiry ON orders (state, expires_at);
      CREATE INDEX orders_by_creation ON orders (created_at, id);
      CREATE TRIGGER order_state_history_no_update BEFORE UPDATE ON order_state_history
      BEGIN SELECT RAISE(ABORT, 'order_state_history is append-only'); END;
      CREATE TRIGGER order_state_history_no_delete BEFORE DELETE ON order_state_history
      BEGIN SELECT RAISE(ABORT, 'order_state_history is append-only'); END;
    `,
  },
  {
    version: 3,
    name: 'history rows say why',
    // JSON text: read only as a whole, with the history; NULL on rows written before, and on imported rows.
    sql: `
      ALTER TABLE order_state_history ADD COLUMN cause TEXT CHECK (cause IS NULL OR json_valid(cause));
    `,
  },
  {
    version: 4,
    name: 'one live order per payment hash',
    refuseWhen: {
      query: `
        SELECT payment_hash, group_concat(id || ' (' || state || ')', ', ') AS orders
        FROM (SELECT payment_hash, id, state FROM orders WHERE state IN (${LIVE_ORDER_STATE_LIST}) ORDER BY created_at, id)
        GROUP BY payment_hash HAVING count(*) > 1 ORDER BY payment_hash LIMIT 10`,
      explain: explainLiveOrderConflicts,
    },
    sql: `CREATE UNIQUE INDEX ${LIVE_ORDER_INDEX} ON orders (payment_hash) WHERE state IN (${LIVE_ORDER_STATE_LIST});`,
  },
  {
    version: 5,
    name: 'chain watcher: cursor, recent blocks and observations per chain',
    // Observations are keyed by block hash and position in the block: a block seen twice adds nothing, and
    // a reorg drops the observations above its fork point by height.
    sql: `
      CREATE TABLE chain_cursors (
        chain TEXT PRIMARY KEY CHECK (chain IN ('bitcoin', 'ethereum')),
        start_height INTEGER NOT NULL,
        height INTEGER NOT NULL,
        hash TEXT NOT NULL
      );

      CREATE TABLE chain_blocks (
        chain TEXT NOT NULL,
        height INTEGER NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (chain, height)
      ) WITHOUT ROWID;

      CREATE TABLE chain_observations (
        chain TEXT NOT NULL,
        block_hash TEXT NOT NULL,
        position INTEGER NOT NULL,
        block_height INTEGER NOT NULL,
        order_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('funding', 'claim', 'refund')),
        tx_id TEXT NOT NULL,
        amount TEXT,
        output_index INTEGER,
        refund_height INTEGER,
        preimage TEXT,
        by_admin INTEGER,
        PRIMARY KEY (chain, block_hash, position)
      ) WITHOUT ROWID;
      CREATE INDEX chain_observations_by_order ON chain_observations (order_id, block_height, position);
      CREATE INDEX chain_observations_by_height ON chain_observations (chain, block_height);
    `,
  },
  {
    version: 6,
    name: 'orders carry their transaction list',
    // A read of an order was three B-tree walks: the index on ids, the row, and its transactions. The list,
    // as order reads return it (a JSON array of [type, tx_id, amount, output_index, block_height] in seq
    // order), now also sits on the order's row, written with it: a read is two walks. order_transactions
    // stays, for the writes that match a transaction by its id. Ordered in a subquery rather than with an
    // aggregate ORDER BY, which SQLite before 3.44 cannot read.
    sql: `
      ALTER TABLE orders ADD COLUMN transactions TEXT NOT NULL DEFAULT '[]';
      UPDATE orders SET transactions = (
        SELECT json_group_array(json_array(type, tx_id, amount, output_index, block_height))
        FROM (SELECT * FROM order_transactions WHERE order_internal_id = orders.internal_id ORDER BY seq))
      WHERE internal_id IN (SELECT order_internal_id FROM order_transactions);
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
        ticker TEXT NOT NULL UNIQUE,
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
        address TEXT PRIMARY KEY,
        version INTEGER NOT NULL CHECK (version IN (2, 3)),
        since INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO swap_contracts (address, version, since)
        SELECT lower(swap_contract_address), 2, 0 FROM chain_views WHERE chain = 'ethereum';
    `,
  },
  {
    version: 11,
    name: 'cooperative refunds the winning provider signed',
    // One signature per slot (order, funder): the claimer's EIP-712 cooperative refund of the third swap contract,
    // which anyone may send to pay the funder back at once. Kept with the order, gone with it; keyed by the order's
    // integer id, as its transactions are, since an import drops the index on the text id while it loads.
    sql: `
      CREATE TABLE cooperative_refunds (
        order_internal_id INTEGER NOT NULL REFERENCES orders (internal_id) ON DELETE CASCADE,
        funder TEXT NOT NULL,
        signature TEXT NOT NULL,
        PRIMARY KEY (order_internal_id, funder)
      ) WITHOUT ROWID;
    `,
  },
];
