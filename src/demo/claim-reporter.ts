import type { Address, Chain, PublicClient, Transport } from 'viem';
import { DEMO_TOKEN_ARTIFACT_ABI } from './ethereum/demo-token-artifact.js';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import { formatFixedPoint } from '../domain/amounts.js';
import { ZERO_ADDRESS } from '../domain/ethereum.js';
import { normalizeOrderId } from '../domain/order-ids.js';
import { serialQueue } from './serial.js';

/** An asset the demo's markets pay in: ether (no token address) or an ERC-20. */
export interface ReportedAsset {
  readonly ticker: string;
  readonly decimals: number;
  readonly tokenAddress?: Address;
}

export interface ClaimReporterOptions {
  readonly publicClient: PublicClient<Transport, Chain>;
  readonly contract: Address;
  readonly assets: readonly ReportedAsset[];
  /** The providers by payout address: a claim paying anyone else is not the demo's. */
  readonly providers: readonly { readonly name: string; readonly payoutAddress: Address }[];
  readonly pollingIntervalMs: number;
  readonly report: (orderId: string, step: string) => void;
}

/**
 * Reads the chain, not the providers, for what their claims paid: each `OrderClaimed` log of the swap contract
 * paying a provider's payout address is printed with the amount and the payout's balance in that asset at the
 * claim's block. The daemon sends its claims from the payout account, so an ether balance also pays their gas.
 */
export function startClaimReporter(options: ClaimReporterOptions): { stop(): void } {
  const byPayout = new Map(options.providers.map((provider) => [provider.payoutAddress.toLowerCase(), provider]));
  const assetOf = (token: Address) =>
    options.assets.find((asset) => (asset.tokenAddress ?? ZERO_ADDRESS).toLowerCase() === token.toLowerCase());
  // One claim at a time, in the chain's order: each line's balance includes every claim printed before it.
  const inOrder = serialQueue();
  return {
    stop: options.publicClient.watchContractEvent({
      address: options.contract,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      eventName: 'OrderClaimed',
      pollingInterval: options.pollingIntervalMs,
      onLogs: (logs) => {
        for (const log of logs) {
          const { orderUUID, claimer, token, amount } = log.args;
          const provider = byPayout.get(claimer?.toLowerCase() ?? '');
          const asset = token === undefined ? undefined : assetOf(token);
          const orderId = normalizeOrderId(orderUUID?.slice(2) ?? '');
          if (provider === undefined || asset === undefined || orderId === undefined || amount === undefined) continue;
          void inOrder(async () => {
            const balance = await balanceAt(options.publicClient, asset, provider.payoutAddress, log.blockNumber);
            options.report(
              orderId,
              `provider ${provider.name}'s claim paid ${formatFixedPoint(amount, asset.decimals)} ${asset.ticker} ` +
                `to its payout ${provider.payoutAddress}, tx ${log.transactionHash}; ` +
                `it holds ${formatFixedPoint(balance, asset.decimals)} ${asset.ticker}`,
            );
          }).catch((error: unknown) =>
            options.report(
              orderId,
              `provider ${provider.name} claimed; its balance could not be read: ${String(error)}`,
            ),
          );
        }
      },
    }),
  };
}

function balanceAt(
  client: PublicClient<Transport, Chain>,
  asset: ReportedAsset,
  address: Address,
  blockNumber: bigint,
): Promise<bigint> {
  return asset.tokenAddress === undefined
    ? client.getBalance({ address, blockNumber })
    : client.readContract({
        address: asset.tokenAddress,
        abi: DEMO_TOKEN_ARTIFACT_ABI,
        functionName: 'balanceOf',
        args: [address],
        blockNumber,
      });
}
