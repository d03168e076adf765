import type { Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../chains/ethereum/swap-contract-artifact.js';
import { parseDecimalAmount } from '../../domain/amounts.js';
import { claimableFunders } from '../../domain/claimable-slots.js';
import { decodeFundingCalldata, ZERO_ADDRESS } from '../../domain/ethereum.js';
import type { Market } from '../../domain/markets.js';
import { orderIdToBytes16 } from '../../domain/order-ids.js';
import { readEthereumSlot } from './ethereum-claim.js';
import { watchEthereumClaim } from './watch-ethereum-claim.js';
import type { ClaimFeePolicy } from '../rules/claim-fee-bump.js';
import { judgeServiceAnswer, type ServiceAnswer } from '../rules/quoted-terms.js';
import { settleEthereumOrder, type EthereumSettlement } from './settle-ethereum-order.js';
import { contractVersionReader, signCooperativeRefunds } from './sign-cooperative-refunds.js';
import type { QuoteRecord } from '../state/provider-state.js';
import type { FundingDetailsView } from '../../client/views.js';
import type { ChainSettlement } from '../daemon/chain-settlement.js';

export interface EthereumChainOptions {
  /** Everything but the routing fee limit, which is per market. */
  settlement: Omit<EthereumSettlement, 'feeLimitMillisatoshis'>;
  /** The Ethereum markets served, by name, with their routing fee limit. */
  markets: ReadonlyMap<string, { market: Market; feeLimitMillisatoshis: (amount: bigint) => bigint }>;
  feePolicy: ClaimFeePolicy;
  /**
   * How far back the contract's `OrderFunded` logs are read for an order's funder. An order is
   * funded within its fund window, and a slot older than the contract's refund delay can no longer
   * be claimed, so the refund delay plus some slack is enough.
   */
  fundingLookbackBlocks: number;
}

/**
 * The Ethereum side of the daemon: an order is won when the service's funding call is the provider's
 * quote (payout address, contract, payment hash, asset and amount); its funder is learnt from the contract's
 * `OrderFunded` logs (the slot made out to the provider with the order's payment hash and asset), and
 * `settleEthereumOrder` then pays and claims; claims are watched to confirmation and fee-bumped.
 */
export function ethereumChainSettlement(options: EthereumChainOptions): ChainSettlement {
  const { settlement } = options;
  const payout = settlement.wallet.account.address.toLowerCase();
  const funders = new Map<string, Hex>();
  const tokenOf = (marketName: string) =>
    (options.markets.get(marketName)?.market.onchain.tokenAddress ?? ZERO_ADDRESS).toLowerCase();

  const contractVersion = contractVersionReader(settlement);

  /** Every funder whose slot of the order names the provider, with the order's payment hash and asset. */
  const matchingFunders = async (orderId: string, paymentHash: string, marketName: string): Promise<Hex[]> => {
    const latest = await settlement.publicClient.getBlockNumber({ cacheTime: 0 });
    const from = latest - BigInt(options.fundingLookbackBlocks);
    const logs = await settlement.publicClient.getContractEvents({
      address: settlement.contract,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      eventName: 'OrderFunded',
      args: { orderUUID: orderIdToBytes16(orderId) },
      fromBlock: from > 0n ? from : 0n,
      toBlock: latest,
    });
    return claimableFunders(
      logs.map((log) => log.args),
      { paymentHash, claimer: payout, token: tokenOf(marketName) },
    );
  };

  /** The funder whose slot of the order is the provider's; the largest when several are. */
  const funderOf = async (orderId: string, paymentHash: string, marketName: string): Promise<Hex | undefined> => {
    const known = funders.get(orderId);
    if (known !== undefined) return known;
    const candidates = await matchingFunders(orderId, paymentHash, marketName);
    let best: { funder: Hex; amount: bigint } | undefined;
    for (const funder of candidates) {
      const slot = await readEthereumSlot(settlement.publicClient, settlement.contract, orderId, funder);
      if (best === undefined || slot.amount > best.amount) best = { funder, amount: slot.amount };
    }
    if (best !== undefined) funders.set(orderId, best.funder);
    return best?.funder;
  };

  return {
    chain: 'ethereum',
    judgeFunding: (fundDetails, quote) => judgeEthereumFunding(fundDetails, quote, options, payout),
    async settle(order) {
      const served = options.markets.get(order.market);
      const quote = settlement.state.quote(order.orderId);
      if (served === undefined || quote === undefined) return { kind: 'not-paying', reason: 'not-quoted' };
      const funder = await funderOf(order.orderId, quote.paymentHash, order.market);
      if (funder === undefined) return { kind: 'waiting', reason: 'funding-not-seen' };
      return settleEthereumOrder(
        { ...settlement, feeLimitMillisatoshis: served.feeLimitMillisatoshis },
        { ...order, funder, token: tokenOf(order.market) },
      );
    },
    async watchClaim(claim) {
      const market = settlement.state.quote(claim.orderId)?.market ?? '';
      const funder = await funderOf(claim.orderId, claim.paymentHash, market);
      if (funder === undefined) throw new Error(`no slot of order ${claim.orderId} names the payout address`);
      return watchEthereumClaim(
        {
          state: settlement.state,
          publicClient: settlement.publicClient,
          wallet: settlement.wallet,
          contract: settlement.contract,
          confirmations: settlement.requiredConfirmations,
          feePolicy: options.feePolicy,
        },
        claim,
        funder,
      );
    },
    async signRefunds(order) {
      if ((await contractVersion()) < 3) return [];
      const funders = await matchingFunders(order.orderId, order.paymentHash, order.market);
      return signCooperativeRefunds(settlement, order.orderId, funders);
    },
    height: async () => Number(await settlement.publicClient.getBlockNumber({ cacheTime: 0 })),
  };
}

/**
 * The service's funding call against this provider's quote: the claimer names whose quote it is (another
 * claimer: an auction lost); with the provider's claimer, the contract, payment hash, asset and amount must be
 * the quote's.
 */
function judgeEthereumFunding(
  funding: FundingDetailsView,
  quote: QuoteRecord,
  options: EthereumChainOptions,
  payout: string,
): ServiceAnswer {
  const served = options.markets.get(quote.market);
  if (served === undefined) return { kind: 'another-quote' };
  const tx = 'unsignedFundingTx' in funding.details ? funding.details.unsignedFundingTx : undefined;
  const call = tx === undefined ? undefined : decodeFundingCalldata(tx.data);
  const amount = parseDecimalAmount(funding.amount, served.market.onchain.decimals);
  const asset = call?.functionName === 'fundToken' ? call.token : call === undefined ? undefined : ZERO_ADDRESS;
  return judgeServiceAnswer(
    [
      { term: 'claimer', quoted: payout, answered: call?.claimer },
      {
        term: 'contract',
        quoted: options.settlement.contract.toLowerCase(),
        answered: tx?.to.toLowerCase(),
      },
      { term: 'paymentHash', quoted: quote.paymentHash.toLowerCase(), answered: call?.paymentHash },
      { term: 'asset', quoted: (served.market.onchain.tokenAddress ?? ZERO_ADDRESS).toLowerCase(), answered: asset },
      { term: 'amount', quoted: quote.onchainAmount.toString(), answered: amount?.toString() },
    ],
    'claimer',
  );
}
