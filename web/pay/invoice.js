// Reads a pasted BOLT11 invoice for the person paying it: what it asks for, until when, on which network.
import { decode } from 'light-bolt11-decoder';

const NETWORKS = { bc: 'mainnet', tb: 'testnet', bcrt: 'simnet', sb: 'simnet' };

/** `{ invoice, network, satoshis, millisatoshis, paymentHash, description, expiresAtMs }`, or `{ refusal }` with a token. */
export function readInvoice(text, nowMs) {
  const invoice = text
    .trim()
    .replace(/^lightning:/i, '')
    .toLowerCase();
  let sections;
  try {
    sections = decode(invoice).sections;
  } catch {
    return { refusal: 'InvalidInvoice' };
  }
  const field = (name) => sections.find((section) => section.name === name)?.value;
  const network = NETWORKS[field('coin_network')?.bech32];
  if (network === undefined) return { refusal: 'InvalidInvoice' };
  const amount = field('amount');
  if (amount === undefined) return { refusal: 'InvoiceWithoutAmount' };
  const millisatoshis = BigInt(amount);
  const expiresAtMs = (field('timestamp') + (field('expiry') ?? 3600)) * 1000;
  if (expiresAtMs <= nowMs) return { refusal: 'InvoiceExpired' };
  return {
    invoice,
    network,
    millisatoshis,
    satoshis: millisatoshis / 1000n,
    paymentHash: field('payment_hash'),
    description: field('description') ?? '',
    expiresAtMs,
  };
}
