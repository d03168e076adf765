/**
 * Both Bitcoin backends against a test node that speaks Esplora and Bitcoin Core over HTTP, on a chain of
 * real transactions: HTLC fundings (P2WSH and P2SH), the provider's claim revealing the preimage, the user's
 * refund after the timelock, a reorg. Each backend must read the same observations from its own API.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../../src/domain/bitcoin.js';
import { BroadcastRefused, type WatchSet } from '../../../src/chains/chain-backend.js';
import type { BitcoinBackend } from '../../../src/chains/bitcoin/bitcoin-backend.js';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc-backend.js';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora-backend.js';
import { hex32 } from '../../support/fixtures.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import {
  buildClaim,
  buildPayment,
  buildRefundFromJson,
  p2wpkhAddress,
  sha256Hex,
  walletKey,
} from '../../support/bitcoin-wallet.js';

const FIRST_HEIGHT = 612_100;
const user = walletKey(hex32('backend user'));
const claimer = walletKey(hex32('backend claimer'));
const preimageA = hex32('preimage A');
const preimageB = hex32('preimage B');
const REFUND_HEIGHT = FIRST_HEIGHT + 3;

function htlc(preimage: string) {
  const redeemScript = buildHtlcRedeemScript({
    paymentHash: sha256Hex(preimage),
    claimPublicKey: Buffer.from(claimer.publicKey).toString('hex'),
    refundPublicKeyHash: hex160(user.publicKey),
    refundableAtBlockHeight: REFUND_HEIGHT,
  });
  return { redeemScript, ...htlcPayToAddresses(redeemScript, 'mainnet') };
}

function hex160(publicKey: Uint8Array): string {
  return createHash('ripemd160').update(createHash('sha256').update(publicKey).digest()).digest('hex');
}

describe('Bitcoin backends on the test node', () => {
  let node: TestBitcoinNode;
  const a = htlc(preimageA);
  const b = htlc(preimageB);
  const watch = (fundingOutputs: WatchSet['fundingOutputs'] = []): WatchSet => ({
    orders: [
      { orderId: 'order-a', payToAddress: a.p2wsh, paymentHash: sha256Hex(preimageA), redeemScript: a.redeemScript },
      { orderId: 'order-b', payToAddress: b.p2sh, paymentHash: sha256Hex(preimageB), redeemScript: b.redeemScript },
    ],
    fundingOutputs,
  });
  let fundingTxId = '';
  let claimTxId = '';
  let refundTxId = '';

  before(async () => {
    const chain = new BitcoinTestChain('mainnet', FIRST_HEIGHT);
    const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
    const funding = buildPayment(
      user,
      { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value },
      [
        { address: a.p2wsh, amount: 40_000n },
        { address: b.p2sh, amount: 25_000n },
      ],
      'mainnet',
    );
    chain.submit(funding.toHex());
    chain.mine();
    fundingTxId = funding.getId();
    const claim = buildClaim(
      a.redeemScript,
      'p2wsh',
      [{ txId: fundingTxId, index: 0, amount: 40_000n }],
      preimageA,
      claimer,
      'mainnet',
    );
    claimTxId = claim.getId();
    chain.submit(claim.toHex());
    chain.mine();
    const refund = buildRefundFromJson(
      {
        market: 'BTC_LBTC',
        refundableAtBlockHeight: REFUND_HEIGHT,
        details: {
          refundAddress: p2wpkhAddress(user, 'mainnet'),
          redeemScript: b.redeemScript,
          currentBlockHeight: REFUND_HEIGHT,
          feeTokensPerVirtualByte: 2,
          utxos: [{ txId: fundingTxId, index: 1, tokens: 25_000 }],
        },
      },
      user,
      'p2sh',
    );
    refundTxId = refund.getId();
    chain.submit(refund.toHex());
    chain.mine();
    node = await startTestBitcoinNode(chain, { feeRate: 12.4 });
  });
  after(() => node?.close());

  const backends: Record<string, () => BitcoinBackend> = {
    esplora: () => new EsploraBackend(node.esploraUrl, 'mainnet'),
    'core rpc': () => new CoreRpcBackend(node.rpcUrl, 'mainnet'),
  };

  for (const [kind, make] of Object.entries(backends)) {
    describe(kind, () => {
      test('identity, tip, block hashes and the fee rate come from the node', async () => {
        const backend = make();
        const identity = await backend.identity();
        assert.equal(identity.network, 'mainnet');
        assert.equal(identity.genesisHash, '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
        const tip = await backend.tip();
        assert.deepEqual(tip, { height: FIRST_HEIGHT + 3, hash: node.chain.tip?.hash });
        assert.deepEqual(await backend.blockAt(FIRST_HEIGHT + 1), {
          height: FIRST_HEIGHT + 1,
          hash: node.chain.blockAtHeight(FIRST_HEIGHT + 1)?.hash,
        });
        assert.equal(await backend.blockAt(FIRST_HEIGHT + 4), undefined);
        assert.equal(await backend.feeRate(), 13);
      });

      test('fundings, the claim with its preimage and the refund, in chain order, with amounts and positions', async () => {
        const backend = make();
        const blocks = [1, 2, 3].map((offset) => node.chain.blockAtHeight(FIRST_HEIGHT + offset)!);
        const ref = (index: number) => ({ height: blocks[index]!.height, hash: blocks[index]!.hash });
        const all = await backend.observations({ from: FIRST_HEIGHT, to: FIRST_HEIGHT + 3 }, watch());
        assert.deepEqual(all, [
          {
            kind: 'funding',
            orderId: 'order-a',
            txId: fundingTxId,
            position: 65_536,
            block: ref(0),
            amount: 40_000n,
            outputIndex: 0,
          },
          {
            kind: 'funding',
            orderId: 'order-b',
            txId: fundingTxId,
            position: 65_537,
            block: ref(0),
            amount: 25_000n,
            outputIndex: 1,
          },
          {
            kind: 'claim',
            orderId: 'order-a',
            txId: claimTxId,
            position: 65_536,
            block: ref(1),
            amount: 40_000n,
            preimage: preimageA,
          },
          { kind: 'refund', orderId: 'order-b', txId: refundTxId, position: 65_536, block: ref(2), amount: 25_000n },
        ]);
        // A later range knows the funding outputs only from the watch set.
        const later = await backend.observations(
          { from: FIRST_HEIGHT + 2, to: FIRST_HEIGHT + 3 },
          watch([
            { orderId: 'order-a', txId: fundingTxId, outputIndex: 0 },
            { orderId: 'order-b', txId: fundingTxId, outputIndex: 1 },
          ]),
        );
        assert.deepEqual(
          later.map((observation) => [observation.kind, observation.txId]),
          [
            ['claim', claimTxId],
            ['refund', refundTxId],
          ],
        );
        // An order's address on another network's prefixes pays nothing here.
        const testnet = htlcPayToAddresses(a.redeemScript, 'testnet').p2wsh;
        const foreign = await backend.observations(
          { from: FIRST_HEIGHT, to: FIRST_HEIGHT + 3 },
          {
            orders: [{ orderId: 'order-a', payToAddress: testnet, paymentHash: sha256Hex(preimageA) }],
            fundingOutputs: [],
          },
        );
        assert.deepEqual(foreign, []);
      });

      test('broadcast: the txid of a transaction the node takes, typed refusals otherwise', async () => {
        const backend = make();
        await assert.rejects(
          backend.broadcast('not hex'),
          (error: unknown) => error instanceof BroadcastRefused && error.reason === 'InvalidTransaction',
        );
        await assert.rejects(
          backend.broadcast('00112233'),
          (error: unknown) => error instanceof BroadcastRefused && error.reason === 'InvalidTransaction',
        );
        const coin = node.chain.blockAtHeight(FIRST_HEIGHT + 2)!.txs[1]!;
        const spend = buildPayment(
          claimer,
          { txId: coin.getId(), index: 0, amount: coin.outs[0]!.value },
          [{ address: p2wpkhAddress(user, 'mainnet'), amount: 10_000n }],
          'mainnet',
        );
        assert.equal(await backend.broadcast(spend.toHex()), spend.getId());
        const conflict = buildPayment(
          claimer,
          { txId: coin.getId(), index: 0, amount: coin.outs[0]!.value },
          [{ address: p2wpkhAddress(user, 'mainnet'), amount: 20_000n }],
          'mainnet',
        );
        await assert.rejects(
          backend.broadcast(conflict.toHex()),
          (error: unknown) => error instanceof BroadcastRefused && error.reason === 'TransactionRejected',
        );
        node.chain.mempool = [];
      });
    });
  }

  test('a reorg shows as a new hash at the same height, on both APIs', async () => {
    const height = FIRST_HEIGHT + 3;
    const before = node.chain.blockAtHeight(height)!.hash;
    node.chain.disconnect(1);
    node.chain.mine({ txs: [] });
    node.chain.mine({ txs: [] });
    for (const make of Object.values(backends)) {
      const backend = make();
      const now = await backend.blockAt(height);
      assert.notEqual(now?.hash, before);
      assert.equal((await backend.tip()).height, height + 1);
      const observed = await backend.observations(
        { from: height, to: height + 1 },
        watch([{ orderId: 'order-b', txId: fundingTxId, outputIndex: 1 }]),
      );
      assert.deepEqual(observed, [], 'the refund left the chain with its block');
    }
  });

  test('Core RPC: credentials from the URL or given apart; a wrong password is an error, never an empty answer', async () => {
    const bare = node.rpcUrl.replace(/\/\/[^@]+@/, '//');
    const apart = new CoreRpcBackend(bare, 'mainnet', { user: node.rpcUser, password: node.rpcPassword });
    assert.equal((await apart.tip()).height, node.chain.tipHeight);
    const wrong = new CoreRpcBackend(bare, 'mainnet', { user: node.rpcUser, password: 'wrong' });
    await assert.rejects(wrong.tip(), /HTTP 401/);
  });
});
