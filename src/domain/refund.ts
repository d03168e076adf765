import { encodeRefundCooperativeCalldata, type CooperativeRefundSignature } from './cooperative-refund.js';
import { encodeRefundCalldata } from './ethereum.js';
import type { Market } from './markets.js';
import type { ChainViews, OrderRecord, OrderTransaction } from './order.js';
import type { OrderSlot } from './order-slots.js';
import type { OrderState } from './states.js';
import { swapContractOfOrder } from './swap-contracts.js';

export interface BitcoinRefundDetails {
  refundAddress?: string;
  redeemScript: string;
  currentBlockHeight: number;
  feeTokensPerVirtualByte: number;
  utxos: { txId: string; index: number; tokens: bigint }[];
}

export interface EthereumRefundDetails {
  to: string;
  data: `0x${string}`;
}

export interface RefundDerivation {
  market: string;
  /**
   * `CooperativeRefund`: the order's claimer signed the slot's refund away (third swap contract); `details` is the
   * `refundCooperative` call, which any account may send at once and which pays the funder.
   */
  type: 'TimelockRefund' | 'AdminRefund' | 'CooperativeRefund';
  state: OrderState;
  blocksRemaining?: number;
  refundableAtBlockHeight?: number;
  /** Base units still locked in the HTLC. */
  refundableBalance: bigint;
  details: BitcoinRefundDetails | EthereumRefundDetails;
}

/**
 * What a wallet needs to take its funds back, derived from the order and the current chain view
 * rather than stored, so it can never disagree with either. On Ethereum the figures describe the order's
 * slots (the refund height the watcher derived from them, what they still hold), never a stranger's dust.
 */
export function deriveRefundDetails(order: OrderRecord, market: Market, chains: ChainViews): RefundDerivation {
  const funds = fundsStillLocked(order) ? order.transactions.filter((transaction) => transaction.type === 'FUND') : [];
  const { blockHeight, details } = chainDetails(order, market, chains, funds);
  return refundAnswer(order, market, details, {
    blockHeight,
    refundableAtBlockHeight: order.htlc.refundableAtBlockHeight,
    refundableBalance: lockedBalance(order, funds),
  });
}

/**
 * The refund of a slot whose claimer signed it away (`CooperativeRefund`): `details` is the
 * `refundCooperative(orderUUID, funder, signature)` call on the order's contract, which any account may send now
 * and which pays the funder (`blocksRemaining` 0); the figures are the slot's, as `deriveSlotRefundDetails` gives
 * them. A slot already emptied, or the principal of a Complete order, answers as without the signature: there is
 * nothing left to send it for.
 */
export function deriveCooperativeRefundDetails(
  order: OrderRecord,
  market: Market,
  chains: ChainViews,
  slot: OrderSlot,
  signed: CooperativeRefundSignature,
): RefundDerivation {
  const timelock = deriveSlotRefundDetails(order, market, chains, slot);
  if (timelock.refundableBalance === 0n || signed.funder !== slot.funder) return timelock;
  return {
    market: market.name,
    type: 'CooperativeRefund',
    state: order.state,
    blocksRemaining: 0,
    refundableAtBlockHeight: slot.refundHeight ?? order.htlc.refundableAtBlockHeight,
    refundableBalance: timelock.refundableBalance,
    details: {
      to: (timelock.details as EthereumRefundDetails).to,
      data: encodeRefundCooperativeCalldata(order.id, signed),
    },
  };
}

/**
 * The refund of one funder's slot of an Ethereum order: the same answer, its figures that slot's alone (its
 * own refund height, what it still holds), whatever the order's other slots say; `details` is the same
 * `refund(orderUUID)` call, which refunds the slot of the account that sends it. The principal slot of a
 * Complete order is the provider's, whose claim of it may not be observed yet: nothing to refund there.
 */
export function deriveSlotRefundDetails(
  order: OrderRecord,
  market: Market,
  chains: ChainViews,
  slot: OrderSlot,
): RefundDerivation {
  const { blockHeight, details } = chainDetails(order, market, chains, []);
  return refundAnswer(order, market, details, {
    blockHeight,
    refundableAtBlockHeight: slot.refundHeight ?? order.htlc.refundableAtBlockHeight,
    refundableBalance: order.state === 'Complete' && slot.role === 'principal' ? 0n : slot.held,
  });
}

interface RefundFigures {
  readonly blockHeight: number;
  readonly refundableAtBlockHeight: number;
  readonly refundableBalance: bigint;
}

function refundAnswer(
  order: OrderRecord,
  market: Market,
  details: BitcoinRefundDetails | EthereumRefundDetails,
  { blockHeight, refundableAtBlockHeight, refundableBalance }: RefundFigures,
): RefundDerivation {
  // One literal per shape: spreading the optional fields in took V8's slow object clone on every refund answer.
  if (order.state === 'AddressBlacklistedWaitingForRefundTx') {
    return { market: market.name, type: 'AdminRefund', state: order.state, refundableBalance, details };
  }
  return {
    market: market.name,
    type: 'TimelockRefund',
    state: order.state,
    blocksRemaining: Math.max(0, refundableAtBlockHeight - blockHeight),
    refundableAtBlockHeight,
    refundableBalance,
    details,
  };
}

/**
 * Funds leave the HTLC when the provider claims them (Complete) or the user refunds them. A REFUND with an
 * amount returned one Ethereum slot of several; one without returned everything (a Bitcoin HTLC's spend).
 */
function fundsStillLocked(order: OrderRecord): boolean {
  if (order.state === 'Complete' || order.state === 'Refunded') return false;
  return !order.transactions.some((transaction) => transaction.type === 'REFUND' && transaction.amount === undefined);
}

/** The order's funds less the slots already refunded: what its funders can still take back. */
function lockedBalance(order: OrderRecord, funds: readonly OrderTransaction[]): bigint {
  if (funds.length === 0) return 0n;
  const funded = funds.reduce((sum, fund) => sum + (fund.amount ?? 0n), 0n);
  const refunded = order.transactions.reduce(
    (sum, transaction) => (transaction.type === 'REFUND' ? sum + (transaction.amount ?? 0n) : sum),
    0n,
  );
  return funded > refunded ? funded - refunded : 0n;
}

function chainDetails(
  order: OrderRecord,
  market: Market,
  chains: ChainViews,
  funds: readonly OrderTransaction[],
): { blockHeight: number; details: BitcoinRefundDetails | EthereumRefundDetails } {
  if (market.onchain.chain === 'ethereum') {
    const ethereum = chains.ethereum;
    if (ethereum === undefined) throw new Error(`no ethereum chain view to derive the refund of order ${order.id}`);
    return {
      blockHeight: ethereum.blockHeight,
      details: { to: swapContractOfOrder(order, ethereum).address, data: encodeRefundCalldata(order.id) },
    };
  }
  const bitcoin = chains.bitcoin;
  if (bitcoin === undefined) throw new Error(`no bitcoin chain view to derive the refund of order ${order.id}`);
  if (order.htlc.redeemScript === undefined) throw new Error(`order ${order.id} has no redeem script`);
  const utxos = funds.map((fund) => {
    if (fund.outputIndex === undefined || fund.amount === undefined) {
      throw new Error(`FUND transaction ${fund.id} of order ${order.id} lacks its output index or amount`);
    }
    return { txId: fund.id, index: fund.outputIndex, tokens: fund.amount };
  });
  const { redeemScript } = order.htlc;
  const { blockHeight, feeTokensPerVirtualByte } = bitcoin;
  // Without refundAddress when the order has none; one literal each, as above.
  const details: BitcoinRefundDetails =
    order.refundAddress === undefined
      ? { redeemScript, currentBlockHeight: blockHeight, feeTokensPerVirtualByte, utxos }
      : {
          refundAddress: order.refundAddress,
          redeemScript,
          currentBlockHeight: blockHeight,
          feeTokensPerVirtualByte,
          utxos,
        };
  return { blockHeight, details };
}
