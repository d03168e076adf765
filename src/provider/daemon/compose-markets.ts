import { privateKeyToAccount } from 'viem/accounts';
import { openBitcoinBackend } from '../../chains/bitcoin/open-bitcoin-backend.js';
import { connectWallet } from '../../chains/ethereum/wallet-connection.js';
import type { LightningBackend } from '../../chains/lightning/lightning-backend.js';
import { bitcoinChainSettlement } from '../bitcoin/bitcoin-chain-settlement.js';
import { ethereumChainSettlement } from '../ethereum/ethereum-chain-settlement.js';
import { ethereumQuoteDetails } from '../ethereum/ethereum-quote-details.js';
import { ClaimKeys } from '../keys/claim-keys.js';
import { fixedRate, urlRate, type RateSource } from '../pricing/rate-source.js';
import { routingFeeLimitMillisatoshis, type MarketPricing } from '../rules/pricing.js';
import type { ServedMarket } from '../service-link/quote-responder.js';
import type { ProviderState } from '../state/provider-state.js';
import type { ChainSettlement } from './chain-settlement.js';
import type { ProviderDaemonConfig } from './daemon-config.js';

const RATE_TIMEOUT_MS = 5_000;
const RATE_MAX_BYTES = 64 * 1024;

/** A market's rate and when it is read again. */
export interface ScheduledRate {
  source: RateSource;
  refreshMs: number;
  dueAtMs: number;
}

/** The parts built from the configuration's markets, which the quote responder and the loop use. */
export interface MarketParts {
  /** The chain settlement of each market served, by market name. */
  settlements: Map<string, ChainSettlement>;
  /** What the quote responder quotes. */
  served: ServedMarket[];
  /** Each market's rate, by market name. */
  rates: Map<string, ScheduledRate>;
  /** The Ethereum payout account, when an Ethereum market is served. */
  payoutAddress: string | undefined;
}

/**
 * Builds each configured market's rate, pricing and chain settlement: a Bitcoin market gets its own
 * settlement on its node; every Ethereum market shares one settlement on the one payout account. A market
 * whose chain's node or key is not given is refused here, before anything is quoted.
 */
export async function composeMarkets(
  config: ProviderDaemonConfig,
  parts: { state: ProviderState; lightning: LightningBackend; now: () => number },
): Promise<MarketParts> {
  const { state, lightning, now } = parts;
  const settlements = new Map<string, ChainSettlement>();
  const rates = new Map<string, ScheduledRate>();
  const served: ServedMarket[] = [];
  const ethereum = config.file.ethereum;
  const wallet =
    ethereum === undefined || config.ethereum === undefined
      ? undefined
      : await connectWallet(config.ethereum.rpcUrl, privateKeyToAccount(config.ethereum.payoutKey));
  const ethereumMarkets = new Map<
    string,
    { market: ServedMarket['market']; feeLimitMillisatoshis: (amount: bigint) => bigint }
  >();
  for (const configured of config.file.markets) {
    const { market } = configured;
    const source =
      configured.rate.kind === 'fixed'
        ? fixedRate(configured.rate.rate)
        : urlRate({
            ...configured.rate,
            decimals: market.onchain.decimals,
            timeoutMs: RATE_TIMEOUT_MS,
            maxBytes: RATE_MAX_BYTES,
            now,
          });
    rates.set(market.name, {
      source,
      refreshMs: configured.rate.kind === 'url' ? configured.rate.refreshMs : Number.POSITIVE_INFINITY,
      dueAtMs: 0,
    });
    const feeLimitMillisatoshis = (amount: bigint) =>
      routingFeeLimitMillisatoshis(configured.pricing.routingFeeLimitBasisPoints, amount);
    const pricing = (): MarketPricing | undefined => {
      const rate = source.current();
      return rate === undefined ? undefined : { ...configured.pricing, onchainPerBitcoin: rate };
    };
    if (market.onchain.chain === 'bitcoin') {
      const rules = config.file.bitcoin;
      if (rules === undefined || config.bitcoin === undefined) {
        throw new Error(`${market.name} is a Bitcoin market: give the Bitcoin node and the claim key seed`);
      }
      const chain = openBitcoinBackend(config.bitcoin.node, market.network);
      const bitcoin = bitcoinChainSettlement({
        settlement: {
          state,
          lightning,
          chain,
          broadcast: (signedTxHex) => chain.broadcast(signedTxHex),
          network: market.network,
          keys: ClaimKeys.fromSeed(config.bitcoin.seed),
          payoutAddress: rules.payoutAddress,
          requiredConfirmations: rules.confirmations,
          claimMarginBlocks: rules.claimMarginBlocks,
          claimFeePolicy: rules.feePolicy,
          paymentTimeoutSeconds: config.file.paymentTimeoutSeconds,
          now,
        },
        market,
        feeLimitMillisatoshis,
        timelockBlocks: rules.timelockBlocks,
      });
      settlements.set(market.name, bitcoin);
      served.push({ market, limits: configured.pricing, pricing, details: (order) => bitcoin.quoteDetails(order) });
      continue;
    }
    if (ethereum === undefined || wallet === undefined) {
      throw new Error(`${market.name} is an Ethereum market: give the Ethereum node and the payout key`);
    }
    ethereumMarkets.set(market.name, { market, feeLimitMillisatoshis });
    served.push({
      market,
      limits: configured.pricing,
      pricing,
      details: (order) =>
        ethereumQuoteDetails(
          {
            swapContractAddress: ethereum.swapContract,
            payoutAddress: wallet.walletClient.account.address,
            ...(market.onchain.tokenAddress === undefined ? {} : { tokenAddress: market.onchain.tokenAddress }),
          },
          order,
        ),
    });
  }
  if (ethereum !== undefined && wallet !== undefined && ethereumMarkets.size > 0) {
    const chain = ethereumChainSettlement({
      settlement: {
        state,
        lightning,
        publicClient: wallet.publicClient,
        wallet: wallet.walletClient,
        contract: ethereum.swapContract,
        requiredConfirmations: ethereum.confirmations,
        claimMarginBlocks: ethereum.claimMarginBlocks,
        paymentTimeoutSeconds: config.file.paymentTimeoutSeconds,
        now,
      },
      markets: ethereumMarkets,
      feePolicy: ethereum.feePolicy,
      fundingLookbackBlocks: ethereum.fundingLookbackBlocks,
    });
    for (const name of ethereumMarkets.keys()) settlements.set(name, chain);
  }
  return { settlements, served, rates, payoutAddress: wallet?.walletClient.account.address };
}
