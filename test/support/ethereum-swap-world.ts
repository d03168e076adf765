import type { Address } from 'viem';
import { catalogOf } from '../../src/domain/market-catalog.js';
import type { SwapContractVersion } from '../../src/domain/order.js';
import { startAnvil, type AnvilNode } from './anvil.js';
import { configuration } from './fixtures.js';
import { ethereumServedMarket, startQuotingProvider, type QuotingProvider } from './provider/quoting-provider.js';
import { startTestService, type TestService } from './ws/harness.js';

export const ETHER_MARKET = 'SETH_LSBTC';
export const TOKEN_MARKET = 'SUSDC_LSBTC';
export const TOKEN_DECIMALS = 6;
/** The confirmations the service waits for before an Ethereum funding counts. */
export const CONFIRMATIONS = 2;
/** The provider's payout account: the claimer of every slot its quotes make. */
export const PROVIDER_PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

/**
 * One Anvil with lnswap's swap contract and a 6-decimal token, one lnswap service watching it, and one provider
 * quoting its ether and token markets: what a test of a user swapping with the library alone needs.
 */
export interface EthereumSwapWorld {
  readonly node: AnvilNode;
  readonly contract: Address;
  readonly token: Address;
  /** The service; closed once `stopService` ran. */
  readonly harness: TestService;
  /** The user's account (Anvil's second), holding 10^12 base units of the token. */
  readonly user: AnvilNode['accounts'][number];
  /** Disconnects the provider and closes the service, leaving the chain running; a second call does nothing. */
  stopService(): Promise<void>;
  close(): Promise<void>;
}

export interface EthereumSwapWorldOptions {
  refundDelay: bigint;
  /** The swap contract's version; the second when absent. */
  contractVersion?: SwapContractVersion;
}

export async function startEthereumSwapWorld(options: EthereumSwapWorldOptions): Promise<EthereumSwapWorld> {
  const node = await startAnvil();
  let harness: TestService | undefined;
  let provider: QuotingProvider | undefined;
  let stopped = false;
  const stopService = async () => {
    if (stopped) return;
    stopped = true;
    provider?.close();
    await harness?.close();
  };
  try {
    const contract = await node.deploySwapContract(options.refundDelay, undefined, options.contractVersion);
    const token = await node.deployDemoToken({ symbol: 'SUSDC', decimals: TOKEN_DECIMALS });
    const user = node.accounts[1]!;
    await node.mintDemoToken(token, user.address, 10n ** 12n);
    const tokens = [
      { ticker: 'SUSDC', network: 'simnet' as const, address: token.toLowerCase(), decimals: TOKEN_DECIMALS },
    ];
    harness = await startTestService('sqlite', {
      configuration: configuration({
        markets: [ETHER_MARKET, TOKEN_MARKET],
        tokens,
        chains: { ethereum: { blockHeight: 0, swapContractAddress: contract.toLowerCase() } },
        providers: [],
      }),
      engine: { quoteDeadlineMs: 300 },
      ethereum: { rpcUrl: node.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
    });
    const catalog = catalogOf({ tokens });
    const terms = { swapContractAddress: contract, payoutAddress: PROVIDER_PAYOUT };
    provider = await startQuotingProvider(harness, 'swap-world-maker', PROVIDER_PAYOUT, [
      ethereumServedMarket(catalog.findMarket(ETHER_MARKET)!, 30n * 10n ** 18n, () => terms),
      ethereumServedMarket(catalog.findMarket(TOKEN_MARKET)!, 90_000n * 10n ** 6n, () => ({
        ...terms,
        tokenAddress: token,
      })),
    ]);
    const service = harness;
    return {
      node,
      contract,
      token,
      harness: service,
      user,
      stopService,
      close: async () => {
        await stopService();
        await node.stop();
      },
    };
  } catch (error) {
    await stopService();
    await node.stop();
    throw error;
  }
}
