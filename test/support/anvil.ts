import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import type { HDAccount } from 'viem/accounts';
import { locateAnvilBinary } from '../../src/demo/ethereum/anvil-binary.js';
import { startAnvilProcess } from '../../src/demo/ethereum/anvil-process.js';
import { mnemonicAccounts } from '../../src/demo/ethereum/mnemonic-accounts.js';
import { DEMO_TOKEN_ARTIFACT_ABI } from '../../src/demo/ethereum/demo-token-artifact.js';
import { deployDemoToken } from '../../src/demo/ethereum/deploy-demo-token.js';
import { deploySwapContract } from '../../src/chains/ethereum/deploy-swap-contract.js';
import type { SwapContractVersion } from '../../src/domain/order.js';

/** Anvil's own default mnemonic: the accounts (and their keys) are the same on every run. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const ANVIL_ACCOUNT_COUNT = 5;
/** 10,000 ether each: enough that no test ever thinks about balances. */
export const ANVIL_ACCOUNT_BALANCE_ETHER = 10_000;
/** Anvil's default chain id, which is also viem's `foundry` chain. */
export const ANVIL_DEFAULT_CHAIN_ID = 31337;

export const anvilBinary: string | undefined = locateAnvilBinary();

/** For node:test: `describe('...', { skip: anvilSkipReason }, ...)`. */
export const anvilSkipReason: string | false =
  anvilBinary === undefined
    ? 'Anvil not found (optional dependency @foundry-rs/anvil-linux-amd64 not installed; set ANVIL_BINARY): chain tests SKIPPED'
    : false;
if (anvilSkipReason) process.stderr.write(`${anvilSkipReason}\n`);

export type AnvilWalletClient = WalletClient<Transport, Chain, Account>;

export interface AnvilOptions {
  /** Default 31337. */
  readonly chainId?: number;
  /**
   * Default true: every transaction is mined into a block of its own at once. False starts with
   * mining off, so several transactions can share one block mined by `mine()`.
   */
  readonly automine?: boolean;
}

export interface AnvilNode {
  readonly rpcUrl: string;
  readonly chain: Chain;
  readonly publicClient: PublicClient<Transport, Chain>;
  readonly testClient: TestClient<'anvil', Transport, Chain>;
  /** Funded accounts with their private keys; accounts[0] is the usual deployer and operator. */
  readonly accounts: readonly HDAccount[];
  /** A wallet client that signs as `account` (default accounts[0]). */
  wallet(account?: Account): AnvilWalletClient;
  /** Mines `blocks` blocks at once; the first takes every pending transaction. */
  mine(blocks?: number): Promise<void>;
  /** Off: transactions wait in the pool until `mine()`, so several can share one block. */
  setAutomine(enabled: boolean): Promise<void>;
  blockNumber(): Promise<bigint>;
  /** evm_snapshot: the id to revert to. */
  snapshot(): Promise<Hex>;
  /** evm_revert: back to the snapshot's chain, dropping every block mined since (a reorg). */
  revert(id: Hex): Promise<void>;
  /** Deploys the swap contract of `version` (default 2) from `owner` (default accounts[0]). */
  deploySwapContract(refundDelay: bigint, owner?: Account, version?: SwapContractVersion): Promise<Address>;
  /** Deploys a DemoToken (a standard ERC-20) from `minter` (default accounts[0]), who alone may mint. */
  deployDemoToken(options: DemoTokenOptions): Promise<Address>;
  /** Mints `amount` base units of a DemoToken to `to`; `minter` must be its deployer (default accounts[0]). */
  mintDemoToken(token: Address, to: Address, amount: bigint, minter?: Account): Promise<void>;
  /** `owner` approves `spender` to take `amount` base units of any ERC-20 `token`. */
  approveToken(token: Address, owner: Account, spender: Address, amount: bigint): Promise<void>;
  /** An ERC-20 balance in base units. */
  tokenBalance(token: Address, holder: Address): Promise<bigint>;
  stop(): Promise<void>;
}

export interface DemoTokenOptions {
  /** Default 'Demo USD'. */
  readonly name?: string;
  /** Default 'SUSDC'. */
  readonly symbol?: string;
  /** Default 6, like USDC. */
  readonly decimals?: number;
  readonly minter?: Account;
}

const STARTUP_TIMEOUT_MS = 20_000;
// Requests answer in microseconds on Anvil; viem's default 4 s polling would only slow tests down.
const POLLING_INTERVAL_MS = 20;

/** Starts Anvil on a free loopback port and resolves once it answers JSON-RPC. */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  if (anvilBinary === undefined) throw new Error('Anvil is not installed');
  const chainId = options.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const anvil = await startAnvilProcess({
    binary: anvilBinary,
    chainId,
    mnemonic: ANVIL_MNEMONIC,
    accounts: ANVIL_ACCOUNT_COUNT,
    balanceEther: ANVIL_ACCOUNT_BALANCE_ETHER,
    noMining: options.automine === false,
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
  });
  const { rpcUrl } = anvil;
  const chain = defineChain({
    id: chainId,
    name: `Anvil ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS });
  const testClient = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: POLLING_INTERVAL_MS });
  const accounts = mnemonicAccounts(ANVIL_MNEMONIC, ANVIL_ACCOUNT_COUNT);
  const owner = accounts[0]!;
  const wallet = (account: Account = owner): AnvilWalletClient =>
    createWalletClient({ chain, transport, account, pollingInterval: POLLING_INTERVAL_MS });
  try {
    const answeredChainId = await publicClient.getChainId();
    if (answeredChainId !== chainId) throw new Error(`Anvil answered chain id ${answeredChainId}, not ${chainId}`);
  } catch (error) {
    await anvil.stop();
    throw error;
  }
  return {
    rpcUrl,
    chain,
    publicClient,
    testClient,
    accounts,
    wallet,
    mine: (blocks = 1) => testClient.mine({ blocks }),
    setAutomine: (enabled) => testClient.setAutomine(enabled),
    blockNumber: () => publicClient.getBlockNumber({ cacheTime: 0 }),
    snapshot: () => testClient.snapshot(),
    revert: (id) => testClient.revert({ id }),
    deploySwapContract: (refundDelay, account = owner, version = 2) =>
      deploySwapContract({ publicClient, walletClient: wallet(account), refundDelay, version }),
    deployDemoToken: ({ name = 'Demo USD', symbol = 'SUSDC', decimals = 6, minter = owner }) =>
      deployDemoToken({ publicClient, walletClient: wallet(minter), name, symbol, decimals }),
    mintDemoToken: async (token, to, amount, minter = owner) => {
      const hash = await wallet(minter).writeContract({
        address: token,
        abi: DEMO_TOKEN_ARTIFACT_ABI,
        functionName: 'mint',
        args: [to, amount],
      });
      await expectSuccess(publicClient, hash, 'mint');
    },
    approveToken: async (token, tokenOwner, spender, amount) => {
      const hash = await wallet(tokenOwner).writeContract({
        address: token,
        abi: DEMO_TOKEN_ARTIFACT_ABI,
        functionName: 'approve',
        args: [spender, amount],
      });
      await expectSuccess(publicClient, hash, 'approve');
    },
    tokenBalance: (token, holder) =>
      publicClient.readContract({
        address: token,
        abi: DEMO_TOKEN_ARTIFACT_ABI,
        functionName: 'balanceOf',
        args: [holder],
      }),
    stop: () => anvil.stop(),
  };
}

async function expectSuccess(publicClient: PublicClient<Transport, Chain>, hash: Hex, what: string): Promise<void> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${what} transaction ${hash} reverted`);
}
