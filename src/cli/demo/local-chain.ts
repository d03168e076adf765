import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Address,
  type Chain,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_PACKAGE, locateAnvilBinary } from '../../chains/ethereum/anvil-binary.js';
import { startAnvilProcess, type AnvilProcess } from '../../chains/ethereum/anvil-process.js';
import { deploySwapContract } from '../../chains/ethereum/deploy-swap-contract.js';

/** Anvil's own default mnemonic: well-known keys, worthless outside this local chain. */
const DEMO_MNEMONIC = 'test test test test test test test test test test test junk';
/** Anvil's default, a simnet chain: the live swaps use the SETH_LSBTC market. */
export const DEMO_CHAIN_ID = 31337;
/** One block a second: a swap completes in a few seconds, and no one mines by hand. */
const BLOCK_TIME_SECONDS = 1;
/** Blocks after funding before the user may take the coins back: an expired order refunds within ~15 s. */
export const DEMO_REFUND_DELAY_BLOCKS = 8;
const POLLING_INTERVAL_MS = 250;

export type DemoWallet = WalletClient<Transport, Chain, Account>;

/** Anvil with the swap contract deployed: the provider is the contract's owner, who receives the claims. */
export interface LocalChain {
  readonly anvil: AnvilProcess;
  readonly contractAddress: Address;
  readonly publicClient: PublicClient<Transport, Chain>;
  readonly provider: DemoWallet;
  /** Funded wallets for the demo's users, one per kind of swap so their transactions never race for a nonce. */
  readonly users: readonly [DemoWallet, DemoWallet];
  tip(): Promise<number>;
  stop(): Promise<void>;
}

/** Why there is no local chain, for the one line the demo prints. */
export class LocalChainUnavailable extends Error {}

export async function startLocalChain(env: Readonly<Record<string, string | undefined>>): Promise<LocalChain> {
  const binary = locateAnvilBinary(env);
  if (binary === undefined) {
    throw new LocalChainUnavailable(
      env.ANVIL_BINARY
        ? `ANVIL_BINARY=${env.ANVIL_BINARY} is not an executable file`
        : `Anvil not found (the optional dependency ${ANVIL_PACKAGE} is not installed; set ANVIL_BINARY to use another)`,
    );
  }
  let anvil: AnvilProcess;
  try {
    anvil = await startAnvilProcess({
      binary,
      chainId: DEMO_CHAIN_ID,
      mnemonic: DEMO_MNEMONIC,
      accounts: 3,
      balanceEther: 1_000,
      blockTimeSeconds: BLOCK_TIME_SECONDS,
    });
  } catch (error) {
    throw new LocalChainUnavailable(`Anvil did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return await deployOn(anvil);
  } catch (error) {
    await anvil.stop();
    throw new LocalChainUnavailable(
      `the swap contract could not be deployed on Anvil: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function deployOn(anvil: AnvilProcess): Promise<LocalChain> {
  const chain = defineChain({
    id: DEMO_CHAIN_ID,
    name: 'lnswap demo (Anvil)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const transport = http(anvil.rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS });
  const wallet = (addressIndex: number): DemoWallet =>
    createWalletClient({
      chain,
      transport,
      account: mnemonicToAccount(DEMO_MNEMONIC, { addressIndex }),
      pollingInterval: POLLING_INTERVAL_MS,
    });
  const provider = wallet(0);
  const contractAddress = await deploySwapContract({
    publicClient,
    walletClient: provider,
    refundDelay: BigInt(DEMO_REFUND_DELAY_BLOCKS),
  });
  return {
    anvil,
    contractAddress,
    publicClient,
    provider,
    users: [wallet(1), wallet(2)],
    tip: async () => Number(await publicClient.getBlockNumber({ cacheTime: 0 })),
    stop: () => anvil.stop(),
  };
}
