import { createHash, randomBytes } from 'node:crypto';
import { signInvoice } from '../../domain/bolt11-writer.js';

export interface DemoInvoice {
  readonly invoice: string;
  readonly paymentHash: string;
}

const PAYEE_PRIVATE_KEY = createHash('sha256').update('lnswap demo payee').digest();
const INVOICE_EXPIRY_SECONDS = 3_600;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest();

/**
 * The Lightning side of the demo, in-process: a payee that signs real simnet BOLT11 invoices and a network that
 * "pays" them by handing back the preimage, which the demo knows. An invoice made unpayable is never paid, so its
 * order runs to its refund height.
 */
export class DemoLightning {
  private readonly preimages = new Map<string, string>();

  createInvoice(satoshis: number, payable: boolean): DemoInvoice {
    const preimage = randomBytes(32);
    const paymentHash = sha256(preimage);
    const invoice = signInvoice({
      network: 'simnet',
      payeePrivateKey: PAYEE_PRIVATE_KEY,
      satoshis,
      timestampSeconds: Math.floor(Date.now() / 1000),
      paymentHash,
      paymentSecret: randomBytes(32),
      description: payable ? 'lnswap demo: a swap that completes' : 'lnswap demo: a payee that never answers',
      expirySeconds: INVOICE_EXPIRY_SECONDS,
    });
    const hash = paymentHash.toString('hex');
    if (payable) this.preimages.set(hash, preimage.toString('hex'));
    return { invoice, paymentHash: hash };
  }

  /** The preimage, proof of payment; undefined when the payee cannot be paid. */
  pay(paymentHash: string): string | undefined {
    return this.preimages.get(paymentHash);
  }
}
