import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
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
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { locateAnvilBinary } from '../../src/chains/ethereum/anvil-binary.js';
import { deploySwapContract } from '../../src/chains/ethereum/deploy-swap-contract.js';

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
  /** Deploys the swap contract from `owner` (default accounts[0]). */
  deploySwapContract(refundDelay: bigint, owner?: Account): Promise<Address>;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 20_000;
// Requests answer in microseconds on Anvil; viem's default 4 s polling would only slow tests down.
const POLLING_INTERVAL_MS = 20;

/** Starts Anvil on a free loopback port and resolves once it answers JSON-RPC. */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  if (anvilBinary === undefined) throw new Error('Anvil is not installed');
  const chainId = options.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const args = [
    '--host', '127.0.0.1',
    '--port', '0',
    '--chain-id', String(chainId),
    '--mnemonic', ANVIL_MNEMONIC,
    '--accounts', String(ANVIL_ACCOUNT_COUNT),
    '--balance', String(ANVIL_ACCOUNT_BALANCE_ETHER),
  ];
  if (options.automine === false) args.push('--no-mining');
  const child = spawn(anvilBinary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // A test process that dies without stop() must not leave its node running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const port = await listeningPort(child);
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: chainId,
    name: `Anvil ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS });
  const testClient = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: POLLING_INTERVAL_MS });
  const accounts = Array.from({ length: ANVIL_ACCOUNT_COUNT }, (_, addressIndex) =>
    mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex }),
  );
  const owner = accounts[0]!;
  const wallet = (account: Account = owner): AnvilWalletClient =>
    createWalletClient({ chain, transport, account, pollingInterval: POLLING_INTERVAL_MS });
  try {
    const answeredChainId = await publicClient.getChainId();
    if (answeredChainId !== chainId) throw new Error(`Anvil answered chain id ${answeredChainId}, not ${chainId}`);
  } catch (error) {
    child.kill('SIGKILL');
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
    deploySwapContract: (refundDelay, account = owner) =>
      deploySwapContract({ publicClient, walletClient: wallet(account), refundDelay }),
    stop: () => stopProcess(child),
  };
}

/** Anvil prints `Listening on 127.0.0.1:PORT` once its server is bound; port 0 lets it pick a free one. */
async function listeningPort(child: ChildProcess): Promise<number> {
  let output = '';
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`Anvil did not start within ${STARTUP_TIMEOUT_MS} ms`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      // Anvil goes on logging every request: keep draining so a full pipe never blocks it.
      child.stdout!.off('data', onData).resume();
      child.stderr!.resume();
      resolve(Number(match[1]));
    };
    const onExit = (code: number | null) => fail(new Error(`Anvil exited (${code}) before listening: ${output.slice(-500)}`));
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
