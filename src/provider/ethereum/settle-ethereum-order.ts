import type { Account, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem';
import { decodeInvoice } from '../../domain/invoice.js';
import type { OrderState } from '../../domain/states.js';
import { readEthereumSlot, sendEthereumClaim } from './ethereum-claim.js';
import { slotProblem, type SlotProblem } from './ethereum-slot.js';
import { paymentStanding, payWhenCleared, type PaymentSettings, type PaymentStep } from '../payments/pay-invoice.js';
import { judgeInvoice } from '../rules/quoted-terms.js';

export interface EthereumOrder {
  orderId: string;
  invoice: string;
  /** The order's state as the service last reported it. */
  serviceState: OrderState;
  /** The account whose slot funds the order (the sender of the funding transaction). */
  funder: Hex;
  /** The market's ERC-20 contract, or the zero address for ether: a slot of another asset is no funding. */
  token: string;
}

export interface EthereumSettlement extends PaymentSettings {
  publicClient: PublicClient<Transport, Chain>;
  /** Signs as the payout account, which the contract pays. */
  wallet: WalletClient<Transport, Chain, Account>;
  contract: Hex;
}

export type SettlementStep =
  | Exclude<PaymentStep, { kind: 'paid' }>
  | { kind: 'not-paying'; reason: SlotProblem | 'not-quoted' | 'invoice-not-quoted' }
  | { kind: 'claim-sent'; txHash: Hex }
  | { kind: 'claim-broadcast' };

/**
 * One step of an Ethereum order the provider won, safe to repeat at any time and after any crash:
 * an open claim is sent; a payment in flight is looked up; otherwise only the invoice quoted for is paid,
 * when the money rules decide so on the provider's own reading of the contract slot, and a payment that
 * succeeds is claimed at once.
 */
export async function settleEthereumOrder(
  settlement: EthereumSettlement,
  order: EthereumOrder,
): Promise<SettlementStep> {
  const { state } = settlement;
  const decoded = decodeInvoice(order.invoice);
  const quote = state.quote(order.orderId);
  if (decoded?.amountMillisatoshis === undefined || quote === undefined)
    return { kind: 'not-paying', reason: 'not-quoted' };
  const claim = state.claim(order.orderId);
  if (claim?.state === 'broadcast' || claim?.state === 'confirmed') return { kind: 'claim-broadcast' };

  const latest = await settlement.publicClient.getBlockNumber({ cacheTime: 0 });
  const slot = await readEthereumSlot(settlement.publicClient, settlement.contract, order.orderId, order.funder);
  const claimTerms = { chain: 'ethereum' as const, refundHeight: slot.refundHeight };
  const payable = { ...decoded, amountMillisatoshis: decoded.amountMillisatoshis };

  const standing = await paymentStanding(settlement, decoded.paymentHash, claimTerms);
  if (standing !== undefined)
    return standing.kind === 'paid' ? sendClaim(settlement, order, standing.preimage) : standing;
  if (judgeInvoice(quote, order.invoice).kind !== 'as-quoted')
    return { kind: 'not-paying', reason: 'invoice-not-quoted' };

  const problem = slotProblem(slot, {
    payoutAddress: settlement.wallet.account.address,
    paymentHash: decoded.paymentHash,
    token: order.token,
    currentHeight: Number(latest),
  });
  if (problem === 'not-funded') return { kind: 'waiting', reason: 'funding-not-seen' };
  if (problem !== undefined) return { kind: 'not-paying', reason: problem };
  const confirmedAt = latest - BigInt(settlement.requiredConfirmations - 1);
  const confirmed =
    confirmedAt >= 0n &&
    (await readEthereumSlot(settlement.publicClient, settlement.contract, order.orderId, order.funder, confirmedAt))
      .state === 'funded';
  const paid = await payWhenCleared(settlement, order, payable, claimTerms, {
    serviceState: order.serviceState,
    ownFunding: { amount: slot.amount, confirmations: confirmed ? settlement.requiredConfirmations : 0 },
    expectedAmount: quote.onchainAmount,
    currentHeight: Number(latest),
  });
  return paid.kind === 'paid' ? sendClaim(settlement, order, paid.preimage) : paid;
}

async function sendClaim(
  settlement: EthereumSettlement,
  order: EthereumOrder,
  preimage: string,
): Promise<SettlementStep> {
  const nonce = await settlement.publicClient.getTransactionCount({
    address: settlement.wallet.account.address,
    blockTag: 'pending',
  });
  const txHash = await sendEthereumClaim(settlement.publicClient, settlement.wallet, {
    contract: settlement.contract,
    orderId: order.orderId,
    funder: order.funder,
    preimage,
    nonce,
  });
  const transaction = await settlement.publicClient.getTransaction({ hash: txHash });
  // The rate a replacement raises: the priority fee per gas (the gas price of a legacy transaction).
  settlement.state.recordClaimBroadcast(order.orderId, {
    txId: txHash,
    fee: transaction.maxPriorityFeePerGas ?? transaction.gasPrice,
    height: Number(await settlement.publicClient.getBlockNumber({ cacheTime: 0 })),
    nonce,
  });
  return { kind: 'claim-sent', txHash };
}
