import { hashInvoice } from '../domain/invoice.js';
import type { SimulatedLightningPayee } from './lightning/simulated-lightning-payee.js';

/** Two at once: one to pay in ether, one in the token, without waiting for a fresh one. */
const OPEN_INVOICES = 2;
const SATOSHIS = [21_000, 22_000] as const;
/** How often the service is asked whether an offered invoice has its order yet. */
const CHECK_INTERVAL_MS = 1_000;

export interface PayPageInvoices {
  stop(): void;
}

/**
 * Invoices of the demo's simulated payee for a person to pay from the pay page: OPEN_INVOICES at start, each printed
 * on its own line, and a fresh one as soon as an order is made for one of them, since the service takes one order
 * per payment hash. Each is payable: the payee settles it with its preimage.
 */
export function offerPayPageInvoices(
  url: string,
  payee: SimulatedLightningPayee,
  print: (invoice: string) => void,
): PayPageInvoices {
  const open = new Map<string, string>();
  let offered = 0;
  const offer = () => {
    const satoshis = SATOSHIS[offered % SATOSHIS.length]!;
    offered += 1;
    const { invoice } = payee.createInvoice(satoshis, true);
    open.set(hashInvoice(invoice), invoice);
    print(invoice);
  };
  for (let index = 0; index < OPEN_INVOICES; index += 1) offer();

  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      for (const invoiceHash of [...open.keys()]) {
        const response = await fetch(`${url}/api/orders?invoiceHash=${invoiceHash}`);
        if (!response.ok) continue;
        if (((await response.json()) as unknown[]).length === 0) continue;
        open.delete(invoiceHash);
        offer();
      }
    } catch {
      // The service is stopping or briefly unreachable: the next check asks again.
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), CHECK_INTERVAL_MS);
  return { stop: () => clearInterval(timer) };
}
