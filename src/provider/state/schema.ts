/**
 * The provider's own tables. Amounts are decimal strings of base units (millisatoshis on Lightning,
 * satoshis or wei on chain), never floating point. `user_version` numbers the schema so a later one
 * can migrate forward.
 */
import type { Database } from 'better-sqlite3';

/** Version 1: quotes, payments, claims. */
const SCHEMA_1 = `
CREATE TABLE quotes (
  order_id TEXT PRIMARY KEY,
  market TEXT NOT NULL,
  payment_hash TEXT NOT NULL,
  invoice_amount_msat TEXT NOT NULL,
  onchain_amount TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  quoted_at_ms INTEGER NOT NULL,
  won INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE payments (
  payment_hash TEXT PRIMARY KEY,
  order_id TEXT NOT NULL,
  invoice TEXT NOT NULL,
  amount_msat TEXT NOT NULL,
  fee_limit_msat TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('paying', 'succeeded', 'failed')),
  preimage TEXT,
  fee_msat TEXT,
  failure_reason TEXT,
  reported INTEGER NOT NULL DEFAULT 0,
  started_at_ms INTEGER NOT NULL,
  resolved_at_ms INTEGER,
  CHECK ((state = 'succeeded') = (preimage IS NOT NULL))
);
CREATE TABLE claims (
  order_id TEXT PRIMARY KEY,
  chain TEXT NOT NULL,
  payment_hash TEXT NOT NULL REFERENCES payments (payment_hash),
  refund_height INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'broadcast', 'confirmed')),
  tx_id TEXT,
  nonce INTEGER,
  fee TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  broadcast_height INTEGER,
  confirmed_height INTEGER
);
CREATE INDEX payments_paying ON payments (state) WHERE state = 'paying';
CREATE INDEX claims_open ON claims (state) WHERE state <> 'confirmed';
`;

/**
 * Version 2: the HTLC of each Bitcoin quote (its redeem script names the order's claim key, derived
 * from the order id, so no key index is kept), the height to read the chain from, and a claim's fee rate,
 * which a Bitcoin replacement must raise.
 */
const SCHEMA_2 = `
CREATE TABLE bitcoin_htlcs (
  order_id TEXT PRIMARY KEY,
  redeem_script TEXT NOT NULL,
  pay_to_address TEXT NOT NULL,
  refund_height INTEGER NOT NULL,
  quoted_height INTEGER NOT NULL
);
ALTER TABLE claims ADD COLUMN fee_rate TEXT;
`;

/**
 * Version 3: `quotes.closed`, set once the daemon has nothing left to do for the order (it lost the
 * auction, or the order it won is over), so a long-running daemon follows only live orders; and a
 * claim may be `lost` (the slot was refunded or the HTLC spent by the refund), so it stops counting
 * as pending. SQLite cannot change a CHECK in place: the claims table is rebuilt.
 */
const SCHEMA_3 = `
ALTER TABLE quotes ADD COLUMN closed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX quotes_open ON quotes (order_id) WHERE closed = 0;
CREATE TABLE claims_2 (
  order_id TEXT PRIMARY KEY,
  chain TEXT NOT NULL,
  payment_hash TEXT NOT NULL REFERENCES payments (payment_hash),
  refund_height INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'broadcast', 'confirmed', 'lost')),
  tx_id TEXT,
  nonce INTEGER,
  fee TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  broadcast_height INTEGER,
  confirmed_height INTEGER,
  fee_rate TEXT
);
INSERT INTO claims_2 SELECT * FROM claims;
DROP TABLE claims;
ALTER TABLE claims_2 RENAME TO claims;
CREATE INDEX claims_open ON claims (state) WHERE state IN ('pending', 'broadcast');
`;

/**
 * Version 4: `quotes.invoice`, the invoice the provider quoted for, so it pays that one and no other the
 * service names. NULL in quotes written before it was kept: such an order is not paid unless a payment of
 * it was already begun (docs/provider.md, "Money rules").
 */
const SCHEMA_4 = `
ALTER TABLE quotes ADD COLUMN invoice TEXT;
`;

/**
 * Version 5, suspect payments: a payment the Lightning node reported in a state the daemon cannot trust (a preimage that
 * does not hash to the payment hash, another amount than the invoice's, a status it does not know) is `suspect`,
 * with why (`suspect_reason`) and what the node said (`node_report`), until the operator resolves it
 * (docs/provider.md, Suspect payments). The payments table is rebuilt for its CHECK, with the claims' references
 * to it off during the rebuild (migrateProviderState checks them before the commit).
 */
const SUSPECT_PAYMENTS = `
CREATE TABLE payments_2 (
  payment_hash TEXT PRIMARY KEY,
  order_id TEXT NOT NULL,
  invoice TEXT NOT NULL,
  amount_msat TEXT NOT NULL,
  fee_limit_msat TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('paying', 'succeeded', 'failed', 'suspect')),
  preimage TEXT,
  fee_msat TEXT,
  failure_reason TEXT,
  reported INTEGER NOT NULL DEFAULT 0,
  started_at_ms INTEGER NOT NULL,
  resolved_at_ms INTEGER,
  suspect_reason TEXT,
  node_report TEXT,
  CHECK ((state = 'succeeded') = (preimage IS NOT NULL)),
  CHECK ((state = 'suspect') = (suspect_reason IS NOT NULL))
);
INSERT INTO payments_2 (payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, preimage, fee_msat,
    failure_reason, reported, started_at_ms, resolved_at_ms)
  SELECT payment_hash, order_id, invoice, amount_msat, fee_limit_msat, state, preimage, fee_msat,
    failure_reason, reported, started_at_ms, resolved_at_ms FROM payments;
DROP TABLE payments;
ALTER TABLE payments_2 RENAME TO payments;
CREATE INDEX payments_paying ON payments (state) WHERE state = 'paying';
`;

/**
 * Version 6, cooperative refunds: the refunds the provider signed away (third swap contract), one per slot of an
 * order it will never pay for, each written before it leaves the daemon. The payment hash is kept with it: a hash
 * whose refund was signed is never paid (`beginPayment` checks it), `reported` once the service acknowledged it.
 */
const COOPERATIVE_REFUNDS = `
CREATE TABLE refund_signatures (
  order_id TEXT NOT NULL,
  funder TEXT NOT NULL,
  payment_hash TEXT NOT NULL,
  signature TEXT NOT NULL,
  signed_at_ms INTEGER NOT NULL,
  reported INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (order_id, funder)
);
CREATE INDEX refund_signatures_by_hash ON refund_signatures (payment_hash);
CREATE INDEX refund_signatures_unreported ON refund_signatures (order_id) WHERE reported = 0;
`;

/** Each migration takes the schema from its index to the next version. */
export const MIGRATIONS: readonly string[] = [
  SCHEMA_1,
  SCHEMA_2,
  SCHEMA_3,
  SCHEMA_4,
  SUSPECT_PAYMENTS,
  COOPERATIVE_REFUNDS,
];
const SCHEMA_VERSION = MIGRATIONS.length;

export function migrateProviderState(db: Database): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION)
    throw new Error(`provider state: schema version ${String(version)} is newer than this lnswap knows`);
  // SQLite's way to rebuild a table others reference: references off (not possible inside a transaction), the
  // rebuild, then every reference checked before the commit.
  const enforced = Number(db.pragma('foreign_keys', { simple: true })) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const migration of MIGRATIONS.slice(version)) db.exec(migration);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) {
        throw new Error(`provider state: migrating left ${String(broken.length)} claims without their payment`);
      }
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
}
