import { recoverTypedDataAddress, type Hex } from 'viem';
import { slotTypedData, type CooperativeRefundDomain } from './cooperative-refund.js';

/**
 * The EIP-712 type a funder signs to ask the winning provider to give up an order (`requestCancel`). It is signed
 * under the domain of the contract holding the funder's money (`{name: "lnswap", version: "3", chainId,
 * verifyingContract}`), so a cancel names one contract on one chain, as the refund it asks for does; its own
 * primary type makes its hash differ from any `CooperativeRefund`, so no cancel can ever open a slot.
 */
export const CANCEL_ORDER_TYPES = {
  CancelOrder: [
    { name: 'orderUUID', type: 'bytes16' },
    { name: 'funder', type: 'address' },
  ],
} as const;

/** The typed data a funder signs to cancel the order, as a wallet's `signTypedData` takes it. */
export function cancelOrderTypedData(orderId: string, funder: string, domain: CooperativeRefundDomain) {
  return slotTypedData(CANCEL_ORDER_TYPES, 'CancelOrder', orderId, funder, domain);
}

/** Who signed the cancel of the order for `funder`, lowercase; undefined for bytes that are no signature at all. */
export async function cancelOrderSigner(
  orderId: string,
  funder: string,
  signature: Hex,
  domain: CooperativeRefundDomain,
): Promise<string | undefined> {
  try {
    const signer = await recoverTypedDataAddress({ ...cancelOrderTypedData(orderId, funder, domain), signature });
    return signer.toLowerCase();
  } catch {
    return undefined;
  }
}
