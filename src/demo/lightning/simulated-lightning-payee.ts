import { createHash, randomBytes } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { signInvoice } from './bolt11-writer.js';

export interface DemoInvoice {
  readonly invoice: string;
  readonly paymentHash: string;
}

/** What the payee saw of one payment: the invoice's hash, the amount, and how many payments to it came so far. */
export interface PaymentReceived {
  readonly paymentHash: string;
  readonly amountMillisatoshis: bigint;
  /** 1 for the first payment to the invoice; anything more is a provider paying twice. */
  readonly count: number;
  readonly settled: boolean;
}

const PAYEE_PRIVATE_KEY = createHash('sha256').update('lnswap demo payee').digest();
const INVOICE_EXPIRY_SECONDS = 3_600;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest();

/**
 * SIMULATED: the Lightning payee of the demo's users, in-process. It signs real simnet BOLT11 invoices and, when a
 * payment reaches it through a simulated node (simulated-lnd-node.ts), settles it by releasing the preimage, as a
 * real payee's node does. An invoice made unpayable is refused, so its order runs to its refund height. No real
 * Lightning network is involved.
 */
export class SimulatedLightningPayee {
  readonly publicKey = Buffer.from(secp256k1.publicKeyCreate(PAYEE_PRIVATE_KEY, true)).toString('hex');
  private readonly preimages = new Map<string, string>();
  private readonly received = new Map<string, number>();

  constructor(private readonly onPayment: (payment: PaymentReceived) => void) {}

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
      description: payable ? 'lnswap demo: a swap that completes' : 'lnswap demo: a payee that refuses the payment',
      expirySeconds: INVOICE_EXPIRY_SECONDS,
    });
    const hash = paymentHash.toString('hex');
    if (payable) this.preimages.set(hash, preimage.toString('hex'));
    return { invoice, paymentHash: hash };
  }

  /** A payment arrives: the preimage when the payee settles it, undefined when it refuses the payment. */
  receive(paymentHash: string, amountMillisatoshis: bigint): string | undefined {
    const count = (this.received.get(paymentHash) ?? 0) + 1;
    this.received.set(paymentHash, count);
    const preimage = this.preimages.get(paymentHash);
    this.onPayment({ paymentHash, amountMillisatoshis, count, settled: preimage !== undefined });
    return preimage;
  }
}
