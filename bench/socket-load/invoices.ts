import { createHash, randomBytes } from 'node:crypto';
import { signInvoice } from '../../src/demo/lightning/bolt11-writer.js';

const PAYEE_KEY = createHash('sha256').update('lnswap socket load payee').digest();

/** A fresh signed mainnet invoice: every quote request needs its own payment hash (one live order per hash). */
export function freshInvoice(satoshis: number): string {
  return signInvoice({
    network: 'mainnet',
    payeePrivateKey: PAYEE_KEY,
    satoshis,
    timestampSeconds: Math.floor(Date.now() / 1000),
    paymentHash: randomBytes(32),
    paymentSecret: randomBytes(32),
    description: 'socket load',
    expirySeconds: 3600,
  });
}
