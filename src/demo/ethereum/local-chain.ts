import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  toHex,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { ANVIL_PACKAGE, locateAnvilBinary } from './anvil-binary.js';
import { startAnvilProcess, type AnvilProcess } from './anvil-process.js';
import { DEMO_TOKEN_ARTIFACT_ABI } from './demo-token-artifact.js';
import { deployDemoToken } from './deploy-demo-token.js';
import { mnemonicAccounts } from './mnemonic-accounts.js';
import { deploySwapContract } from '../../chains/ethereum/deploy-swap-contract.js';

/** Anvil's own default mnemonic: well-known keys, worthless outside this local chain. */
const DEMO_MNEMONIC = 'test test test test test test test test test test test junk';
/** Anvil's default, a simnet chain: the live swaps use the SETH_LSBTC market and the demo token's. */
export const DEMO_CHAIN_ID = 31337;
/** One block a second: a swap completes in a few seconds, and no one mines by hand. */
const BLOCK_TIME_SECONDS = 1;
/** Blocks after funding before the user may take the coins back: an expired order refunds within ~15 s. */
export const DEMO_REFUND_DELAY_BLOCKS = 8;
const POLLING_INTERVAL_MS = 250;
/** Accounts Anvil funds with ether: the owner, two providers' payout accounts and three users. */
const FUNDED_ACCOUNTS = 6;
/** The providers' payout accounts: each receives its provider's claims and pays their gas. */
const PROVIDER_ACCOUNT_INDEXES = [1, 2] as const;
/** A USDC-like token, minted to the token user: far more than the demo's swaps ever take. */
export const DEMO_TOKEN = { name: 'Demo USD', ticker: 'SUSDC', decimals: 6 } as const;
const DEMO_TOKEN_MINTED = 1_000_000n * 10n ** BigInt(DEMO_TOKEN.decimals);

export type DemoWallet = WalletClient<Transport, Chain, Account>;

/** A liquidity provider's payout account: the key its daemon claims with, and the address the claims pay. */
export interface DemoProviderAccount {
  readonly payoutKey: Hex;
  readonly payoutAddress: Address;
}

/** Anvil with the swap contract and the demo token deployed; the owner (account 0) is nobody's counterparty. */
export interface LocalChain {
  readonly anvil: AnvilProcess;
  readonly contractAddress: Address;
  readonly tokenAddress: Address;
  readonly publicClient: PublicClient<Transport, Chain>;
  readonly providers: readonly [DemoProviderAccount, DemoProviderAccount];
  /**
   * Funded wallets for the demo's users, one per kind of swap so their transactions never race for a nonce:
   * ether swaps that complete, ether swaps that are refunded, token swaps (this one holds the demo token).
   */
  readonly users: { readonly ether: DemoWallet; readonly refunding: DemoWallet; readonly token: DemoWallet };
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
      accounts: FUNDED_ACCOUNTS,
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
      `the demo's contracts could not be deployed on Anvil: ${error instanceof Error ? error.message : String(error)}`,
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
  // The owner, the two providers, then the three users.
  const accounts = mnemonicAccounts(DEMO_MNEMONIC, 6);
  const wallet = (addressIndex: number): DemoWallet =>
    createWalletClient({ chain, transport, account: accounts[addressIndex]!, pollingInterval: POLLING_INTERVAL_MS });
  const provider = (addressIndex: number): DemoProviderAccount => {
    const account = accounts[addressIndex]!;
    return { payoutKey: toHex(account.getHdKey().privateKey!), payoutAddress: account.address };
  };
  const owner = wallet(0);
  const contractAddress = await deploySwapContract({
    publicClient,
    walletClient: owner,
    refundDelay: BigInt(DEMO_REFUND_DELAY_BLOCKS),
    // The third version: a provider that will never pay signs the refund away, and the user has it back at once.
    version: 3,
  });
  const tokenAddress = await deployDemoToken({
    publicClient,
    walletClient: owner,
    name: DEMO_TOKEN.name,
    symbol: DEMO_TOKEN.ticker,
    decimals: DEMO_TOKEN.decimals,
  });
  const users = { ether: wallet(3), refunding: wallet(4), token: wallet(5) };
  const mint = await owner.writeContract({
    address: tokenAddress,
    abi: DEMO_TOKEN_ARTIFACT_ABI,
    functionName: 'mint',
    args: [users.token.account.address, DEMO_TOKEN_MINTED],
  });
  if ((await publicClient.waitForTransactionReceipt({ hash: mint })).status !== 'success') {
    throw new Error(`minting the demo token failed, tx ${mint}`);
  }
  return {
    anvil,
    contractAddress,
    tokenAddress,
    publicClient,
    providers: [provider(PROVIDER_ACCOUNT_INDEXES[0]), provider(PROVIDER_ACCOUNT_INDEXES[1])],
    users,
    tip: async () => Number(await publicClient.getBlockNumber({ cacheTime: 0 })),
    stop: () => anvil.stop(),
  };
}
