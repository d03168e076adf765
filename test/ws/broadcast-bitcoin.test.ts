import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Transaction } from 'bitcoinjs-lib';
import { startService, type RunningService } from '../../src/service.js';
import { RELAYED_TRANSACTION_BYTES } from '../../src/ws/broadcast-transaction.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey, type Outpoint } from '../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, configuration, seedStore } from '../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { connectClient, refusalOf, request, silentLogger, succeed, type Client } from '../support/ws/harness.js';

const payer = walletKey('11'.repeat(32));
const payee = p2wpkhAddress(walletKey('22'.repeat(32)), 'mainnet');
/** A P2WPKH output is 31 bytes: this many make a transaction of about `bytes`. */
const outputsFor = (bytes: number) => Math.floor(bytes / 31);

describe('broadcastTransaction of Bitcoin transactions as large as a node relays', () => {
  let chain: BitcoinTestChain;
  let node: TestBitcoinNode;
  let fresh: FreshStore;
  let service: RunningService;
  const coins: Outpoint[] = [];
  const clients: Client[] = [];

  before(async () => {
    chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
    for (let index = 0; index < 3; index += 1) {
      const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(payer, 'mainnet') }).txs[0]!;
      coins.push({ txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value });
    }
    node = await startTestBitcoinNode(chain);
    fresh = await openFreshStore('sqlite');
    await seedStore(fresh.store, { configuration: configuration({ providers: [] }) });
    service = await startService({
      store: fresh.store,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      databaseUrl: fresh.url,
      bitcoin: { rpcUrl: node.rpcUrl, confirmations: 1, pollIntervalMs: 1_000 },
      // Byte budgets that take a 2 MB message at once: the token for a transaction over the relay limit is tested
      // here; with the default budgets it comes once the connection has paid for the message (byte-budgets.test.ts).
      sockets: {
        bytesPerConnection: { burst: 4 * 1024 * 1024, perSecond: 1024 * 1024 },
        bytesPerAddress: { burst: 16 * 1024 * 1024, perSecond: 4 * 1024 * 1024 },
      },
    });
  });
  after(async () => {
    for (const client of clients) client.close();
    await service?.close();
    await node?.close();
    await fresh?.dispose();
  });

  function paying(coin: Outpoint, outputs: number): Transaction {
    return buildPayment(
      payer,
      coin,
      Array.from({ length: outputs }, () => ({ address: payee, amount: 1_000n })),
      'mainnet',
    );
  }

  async function user(generation: 'v4' | 'v2'): Promise<Client> {
    const client = await connectClient(service.url, '/user/v1', generation);
    clients.push(client);
    return client;
  }

  test('a standard transaction near the weight limit, far over the old 64 KiB message bound, is relayed', async (t) => {
    const tx = paying(coins[0]!, outputsFor(95_000));
    assert.ok(tx.weight() <= RELAYED_TRANSACTION_BYTES.bitcoin && tx.weight() > 370_000, `weight ${tx.weight()}`);
    const signedTxHex = tx.toHex();
    assert.ok(signedTxHex.length > 180_000);
    const answer = (await succeed(await user('v2'), 'broadcastTransaction', { onchainTicker: 'BTC', signedTxHex })) as {
      txId: string;
    };
    assert.equal(answer.txId, tx.getId());
    assert.ok(chain.find(tx.getId()) !== undefined, 'the node holds it');
    t.diagnostic(`relayed: ${tx.byteLength()} bytes, weight ${tx.weight()}, ${signedTxHex.length} hex digits`);
  });

  test('a 1 MB transaction is refused with PayloadTooLarge, over both client generations, and the connection stays', async (t) => {
    const tx = paying(coins[1]!, outputsFor(990_000));
    assert.ok(tx.byteLength() > 950_000);
    const signedTxHex = tx.toHex();
    for (const generation of ['v4', 'v2'] as const) {
      const client = await user(generation);
      const started = performance.now();
      assert.equal(
        await refusalOf(client, 'broadcastTransaction', { onchainTicker: 'BTC', signedTxHex }),
        'PayloadTooLarge',
        generation,
      );
      t.diagnostic(`${generation}: ${tx.byteLength()} bytes refused in ${Math.round(performance.now() - started)} ms`);
      assert.equal(
        (await request(client, 'requestMarketRequirements', null)).success,
        true,
        `${generation} still served`,
      );
    }
    assert.equal(chain.find(tx.getId()), undefined, 'the node never saw it');
  });

  test('just over the standard weight in bytes is refused before the node; other events keep their 16 KiB bound', async () => {
    const client = await user('v4');
    const justOver = 'ab'.repeat(RELAYED_TRANSACTION_BYTES.bitcoin + 1);
    assert.equal(
      await refusalOf(client, 'broadcastTransaction', { onchainTicker: 'BTC', signedTxHex: justOver }),
      'PayloadTooLarge',
    );
    assert.equal(await refusalOf(client, 'requestRefundDetails', { orderId: 'x'.repeat(20_000) }), 'PayloadTooLarge');
    const small = paying(coins[2]!, 2);
    assert.deepEqual(
      await succeed(client, 'broadcastTransaction', { onchainTicker: 'btc', signedTxHex: small.toHex() }),
      {
        txId: small.getId(),
      },
    );
  });
});
