import assert from 'node:assert/strict';
import type { OrderRecord } from '../../../src/domain/order.js';
import type { BitcoinWatchOptions } from '../../../src/engine/chain-following/bitcoin-watch.js';
import { BitcoinTestChain } from '../bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, type Outpoint, type WalletKey } from '../bitcoin-wallet.js';
import { BITCOIN_VIEW } from '../fixtures.js';
import type { StoreKind } from '../stores.js';
import { addProvider, eventually, startTestService, type Client, type TestService } from '../ws/harness.js';
import { makerTerms, runBot, type RunningBot } from './bots.js';

/**
 * A mainnet test chain whose first block pays the user, the Bitcoin node stand-in serving it, the real service
 * following the node, one provider bot quoting Bitcoin and the user's connection: what a test of Bitcoin orders
 * following the chain end to end needs.
 */
export interface BitcoinSwapWorld {
  readonly chain: BitcoinTestChain;
  readonly node: TestBitcoinNode;
  readonly running: TestService;
  readonly bot: RunningBot;
  /** The user's connection to `/user/v1`. */
  readonly user: Client;
  /**
   * Pays each output from the user's coin in one transaction, submitted to the node's mempool; the change, the
   * output after them, is the next coin. Returns the transaction's id.
   */
  pay(outputs: readonly { address: string; amount: bigint }[]): string;
  /** The order as the service's store holds it. */
  order(id: string): Promise<OrderRecord>;
  /** The order once the service moved it to `state`. */
  reaches(id: string, state: string): Promise<OrderRecord>;
  close(): Promise<void>;
}

export interface BitcoinSwapWorldOptions {
  store: StoreKind;
  /** The key the first block pays, which signs every payment. */
  userKey: WalletKey;
  /** The provider's name, which also labels its terms. */
  provider: string;
  claimPrivateKey: string;
  /** The fee rate the node estimates, sat/vB. */
  feeRate: number;
  confirmations: number;
  /** How the service reads the node; its Esplora when absent. */
  backend?: (node: TestBitcoinNode) => BitcoinWatchOptions;
}

export async function startBitcoinSwapWorld(options: BitcoinSwapWorldOptions): Promise<BitcoinSwapWorld> {
  const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(options.userKey, 'mainnet') }).txs[0]!;
  let coin: Outpoint = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
  const node = await startTestBitcoinNode(chain, { feeRate: options.feeRate });
  let running: TestService | undefined;
  let bot: RunningBot | undefined;
  const close = async () => {
    bot?.bot.close();
    await running?.close();
    await node.close();
  };
  try {
    const backend: BitcoinWatchOptions = options.backend?.(node) ?? { esploraUrl: node.esploraUrl };
    running = await startTestService(options.store, {
      engine: { minFundWindowMs: 300 },
      bitcoin: { ...backend, confirmations: options.confirmations, pollIntervalMs: 20 },
    });
    bot = await runBot(running.service.url, await addProvider(running.fresh.store, options.provider), {
      ...makerTerms(options.provider, 100n, 600_000),
      claimPrivateKey: options.claimPrivateKey,
    });
    const user = await running.connect('/user/v1');
    const service = running;
    const order = async (id: string): Promise<OrderRecord> => {
      const found = await service.fresh.store.getOrder(id);
      assert.ok(found !== undefined);
      return found;
    };
    return {
      chain,
      node,
      running: service,
      bot,
      user,
      pay(outputs) {
        const tx = buildPayment(options.userKey, coin, outputs, 'mainnet');
        chain.submit(tx.toHex());
        coin = { txId: tx.getId(), index: outputs.length, amount: tx.outs[outputs.length]!.value };
        return tx.getId();
      },
      order,
      reaches: async (id, state) => {
        await eventually(async () => (await order(id)).state === state, `order ${id} to be ${state}`);
        return order(id);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
