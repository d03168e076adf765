import type { Database, Statement } from 'better-sqlite3';
import { SELECT_ORDERS, STORED_ORDER_COLUMNS } from '../order-rows.js';

// Orders' rows carry their transaction list (migration 6), written with them: `storedOrderValues`.
const ORDER_PLACEHOLDERS = STORED_ORDER_COLUMNS.map(() => '?').join(', ');
const ORDER_ASSIGNMENTS = STORED_ORDER_COLUMNS.map((column) => `${column} = ?`).join(', ');

/** Every statement the SQLite store runs, prepared once per connection. */
export function prepareStatements(db: Database) {
  const prepare = (sql: string): Statement => db.prepare(sql);
  // Order reads return `OrderRow` arrays.
  const prepareOrderRead = (sql: string): Statement => db.prepare(sql).raw();
  return {
    selectOrder: prepareOrderRead(`${SELECT_ORDERS} WHERE o.id = ?`),
    selectOrdersByInvoiceHash: prepareOrderRead(
      `${SELECT_ORDERS} WHERE o.invoice_hash = ?
       ORDER BY o.created_at DESC, o.id DESC`,
    ),
    selectOrdersByInvoiceHashAndTicker: prepareOrderRead(
      `${SELECT_ORDERS} WHERE o.invoice_hash = ? AND o.onchain_ticker = ?
       ORDER BY o.created_at DESC, o.id DESC`,
    ),
    selectOrdersAfter: prepareOrderRead(
      `${SELECT_ORDERS} WHERE (o.created_at, o.id) > (?, ?) ORDER BY o.created_at, o.id LIMIT ?`,
    ),
    selectOrdersExpiredIn: prepareOrderRead(
      `${SELECT_ORDERS} WHERE o.state = ? AND o.expires_at <= ?
       ORDER BY o.expires_at, o.id`,
    ),
    selectOrdersByPaymentHash: prepareOrderRead(
      `${SELECT_ORDERS} WHERE o.payment_hash = ? AND o.state IN (SELECT value FROM json_each(?))
       ORDER BY o.created_at, o.id`,
    ),
    selectStatesByPaymentHash: prepare('SELECT state FROM orders WHERE payment_hash = ?').pluck(),
    countOrdersInStates: prepare(`SELECT count(*) FROM orders WHERE state IN (SELECT value FROM json_each(?))`).pluck(),
    selectStoredOrder: prepare('SELECT internal_id AS internalId, state FROM orders WHERE id = ?'),
    selectStateByInternalId: prepare('SELECT state FROM orders WHERE internal_id = ?').pluck(),
    insertOrder: prepare(`INSERT INTO orders (${STORED_ORDER_COLUMNS.join(', ')}) VALUES (${ORDER_PLACEHOLDERS})`),
    replaceOrder: prepare(`UPDATE orders SET ${ORDER_ASSIGNMENTS} WHERE internal_id = ?`),
    moveOrderState: prepare(
      `UPDATE orders SET state = ?, payment_preimage = coalesce(?, payment_preimage)
       WHERE id = ? AND state = ? RETURNING internal_id`,
    ).pluck(),
    // After a write to order_transactions alone: the row's list made again from the table.
    relistTransactions: prepare(
      `UPDATE orders SET transactions = (
         SELECT json_group_array(json_array(type, tx_id, amount, output_index, block_height))
         FROM (SELECT * FROM order_transactions WHERE order_internal_id = @internalId ORDER BY seq))
       WHERE internal_id = @internalId`,
    ),
    deleteTransactions: prepare('DELETE FROM order_transactions WHERE order_internal_id = ?'),
    insertTransaction: prepare(
      `INSERT INTO order_transactions (order_internal_id, seq, type, tx_id, amount, output_index, block_height)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertFirstHistory: prepare(
      'INSERT INTO order_state_history (order_internal_id, seq, state, at, cause) VALUES (?, 1, ?, ?, ?)',
    ),
    appendTransaction: prepare(
      `INSERT INTO order_transactions (order_internal_id, seq, type, tx_id, amount, output_index, block_height)
       SELECT @internalId, coalesce(max(seq), 0) + 1, @type, @txId, @amount, @outputIndex, @blockHeight
       FROM order_transactions WHERE order_internal_id = @internalId`,
    ),
    updateSameTransaction: prepare(
      `UPDATE order_transactions SET amount = @amount, block_height = @blockHeight
       WHERE order_internal_id = @internalId AND type = @type AND tx_id = @txId AND output_index IS @outputIndex`,
    ),
    selectHistory: prepare(
      `SELECT h.state, h.at, h.cause FROM order_state_history h
       WHERE h.order_internal_id = (SELECT internal_id FROM orders WHERE id = ?) ORDER BY h.seq`,
    ),
    selectHistorySince: prepare(
      `SELECT h.seq, h.state, h.at, h.cause FROM order_state_history h
       WHERE h.order_internal_id = (SELECT internal_id FROM orders WHERE id = ?) AND h.seq > ? ORDER BY h.seq`,
    ),
    appendHistory: prepare(
      `INSERT INTO order_state_history (order_internal_id, seq, state, at, cause)
       SELECT @internalId, coalesce(max(seq), 0) + 1, @state, @at, @cause
       FROM order_state_history WHERE order_internal_id = @internalId
       RETURNING seq`,
    ).pluck(),

    insertCooperativeRefund: prepare(
      `INSERT INTO cooperative_refunds (order_internal_id, funder, signature)
       SELECT internal_id, ?, ? FROM orders WHERE id = ?
       ON CONFLICT (order_internal_id, funder) DO NOTHING`,
    ),
    selectCooperativeRefunds: prepare(
      `SELECT funder, signature FROM cooperative_refunds
       WHERE order_internal_id = (SELECT internal_id FROM orders WHERE id = ?) ORDER BY funder`,
    ),

    selectMarkets: prepare('SELECT name FROM markets ORDER BY position').pluck(),
    deleteMarkets: prepare('DELETE FROM markets'),
    insertMarket: prepare('INSERT INTO markets (position, name) VALUES (?, ?)'),
    selectTokens: prepare('SELECT ticker, network, address, decimals FROM tokens ORDER BY position'),
    deleteTokens: prepare('DELETE FROM tokens'),
    appendToken: prepare(
      `INSERT INTO tokens (position, ticker, network, address, decimals)
       SELECT coalesce(max(position), -1) + 1, ?, ?, ?, ? FROM tokens`,
    ),
    appendMarket: prepare(
      'INSERT INTO markets (position, name) SELECT coalesce(max(position), -1) + 1, ? FROM markets',
    ),
    insertToken: prepare('INSERT INTO tokens (position, ticker, network, address, decimals) VALUES (?, ?, ?, ?, ?)'),
    selectChainViews: prepare('SELECT * FROM chain_views'),
    deleteChainViews: prepare('DELETE FROM chain_views'),
    upsertChainView: prepare(
      `INSERT INTO chain_views (chain, block_height, fee_tokens_per_virtual_byte, swap_contract_address)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (chain) DO UPDATE SET block_height = excluded.block_height,
         fee_tokens_per_virtual_byte = excluded.fee_tokens_per_virtual_byte,
         swap_contract_address = excluded.swap_contract_address`,
    ),
    selectSwapContracts: prepare('SELECT address, version, since FROM swap_contracts'),
    upsertSwapContract: prepare(
      `INSERT INTO swap_contracts (address, version, since) VALUES (?, ?, ?)
       ON CONFLICT (address) DO UPDATE SET version = excluded.version, since = excluded.since`,
    ),
    addUnrecordedSwapContract: prepare(
      'INSERT INTO swap_contracts (address, version, since) VALUES (?, ?, ?) ON CONFLICT (address) DO NOTHING',
    ),
    selectProviders: prepare('SELECT id, active FROM providers'),
    selectProviderMarkets: prepare('SELECT * FROM provider_markets ORDER BY provider_id, position'),
    upsertProvider: prepare(
      'INSERT INTO providers (id, active) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET active = excluded.active',
    ),
    setProviderActive: prepare('UPDATE providers SET active = ? WHERE id = ?'),
    deleteProviderMarkets: prepare('DELETE FROM provider_markets WHERE provider_id = ?'),
    insertProviderMarket: prepare(
      `INSERT INTO provider_markets
         (provider_id, market, position, min_expiration_seconds, min_base_units, max_base_units)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),

    insertCredential: prepare(
      `INSERT INTO provider_credentials (name, api_key, secret_hash, created_at, revoked_at, ethereum_payout_address)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    selectCredentialByApiKey: prepare('SELECT * FROM provider_credentials WHERE api_key = ?'),
    selectCredentials: prepare('SELECT * FROM provider_credentials'),
    revokeCredential: prepare('UPDATE provider_credentials SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL'),
    setPayoutAddress: prepare(
      'UPDATE provider_credentials SET ethereum_payout_address = ? WHERE name = ? AND revoked_at IS NULL',
    ),
  };
}

export type SqliteStatements = ReturnType<typeof prepareStatements>;
