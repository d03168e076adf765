import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createPublicClient, http, parseEther, serializeTransaction, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { RELAYED_TRANSACTION_BYTES } from '../../src/ws/broadcast-transaction.js';
import { startService, type RunningService } from '../../src/service.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { configuration, seedStore } from '../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { connectClient, refusalOf, succeed, type Client } from '../support/ws/harness.js';

// Anvil's first well-known development account.
const PAYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
// The second, funded with 10,000 ether like the first.
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

let anvil: AnvilNode;
let chain: PublicClient;
let fresh: FreshStore;
let service: RunningService;
let user: Client;
const logLines: string[] = [];

before(async () => {
  if (anvilSkipReason) return;
  anvil = await startAnvil();
  chain = createPublicClient({ transport: http(anvil.rpcUrl) });
  // Deployed by another account than the payer, whose nonces the tests count.
  const contract = await anvil.deploySwapContract(30n, anvil.accounts[2]);
  fresh = await openFreshStore('sqlite');
  await seedStore(fresh.store, {
    configuration: configuration({
      markets: ['SETH_LSBTC'],
      chains: { ethereum: { blockHeight: 0, swapContractAddress: contract } },
      providers: [],
    }),
  });
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  service = await startService({
    store: fresh.store,
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'info' }, logs),
    databaseUrl: fresh.url,
    // The service's own Ethereum node: Anvil, chain id 31337, a simnet chain.
    ethereum: { rpcUrl: anvil.rpcUrl, confirmations: 1, pollIntervalMs: 20, startHeight: 0 },
  });
  user = await connectClient(service.url, '/user/v1');
});

after(async () => {
  user?.close();
  await service?.close();
  await fresh?.dispose();
  await anvil?.stop();
});

async function signedTransfer(nonce: number): Promise<`0x${string}`> {
  return PAYER.signTransaction({
    chainId: await chain.getChainId(),
    type: 'eip1559',
    nonce,
    to: RECIPIENT,
    value: parseEther('0.25'),
    gas: 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

test(
  'a signed transaction is broadcast and mined; its id comes back as { txId }',
  { skip: anvilSkipReason },
  async () => {
    const signed = await signedTransfer(0);
    const answer = (await succeed(user, 'broadcastTransaction', { onchainTicker: 'seth', signedTxHex: signed })) as {
      txId: string;
    };
    assert.match(answer.txId, /^0x[0-9a-f]{64}$/);
    const receipt = await chain.waitForTransactionReceipt({ hash: answer.txId as `0x${string}`, timeout: 10_000 });
    assert.equal(receipt.status, 'success');
    assert.equal(await chain.getBalance({ address: RECIPIENT }), parseEther('10000.25'));

    // The same nonce again: the node refuses it, the client hears only the token, the log keeps the node's reason.
    const replay = await signedTransfer(0);
    assert.equal(
      await refusalOf(user, 'broadcastTransaction', { onchainTicker: 'SETH', signedTxHex: replay }),
      'TransactionRejected',
    );
    const refusal = logLines
      .map((line) => JSON.parse(line) as { msg: string; node?: string })
      .find((entry) => entry.msg === 'broadcast refused');
    assert.match(refusal?.node ?? '', /nonce/i);
  },
);

test(
  'what is not a signed transaction, or has no node to go to, is refused with a token',
  { skip: anvilSkipReason },
  async () => {
    const refused = (payload: unknown) => refusalOf(user, 'broadcastTransaction', payload);
    assert.equal(await refused({ onchainTicker: 'SETH', signedTxHex: '0xdeadbeef' }), 'InvalidSignedTxHex');
    assert.equal(await refused({ onchainTicker: 'SETH', signedTxHex: 'not hex' }), 'InvalidSignedTxHex');
    assert.equal(await refused({ onchainTicker: 'SETH', signedTxHex: '' }), 'InvalidSignedTxHex');
    // A well-formed transaction that nobody signed: the node will not take it.
    const unsigned = serializeTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 1,
      to: RECIPIENT,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    assert.equal(await refused({ onchainTicker: 'SETH', signedTxHex: unsigned }), 'TransactionRejected');
    assert.equal(await refused({ onchainTicker: 'SETH' }), 'InvalidOrMissingBroadcastTxRequestFields');
    assert.equal(await refused('0xdeadbeef'), 'InvalidOrMissingBroadcastTxRequestFields');
    assert.equal(await refused(undefined), 'InvalidOrMissingBroadcastTxRequestFields');
    assert.equal(await refused({ onchainTicker: 'DOGE', signedTxHex: '0x00' }), 'InvalidOnchainTicker');
    const signed = await signedTransfer(1);
    // Bitcoin has no backend here, and neither a mainnet nor a testnet ticker is sent to a simnet node.
    assert.equal(await refused({ onchainTicker: 'BTC', signedTxHex: '0200' }), 'NoBackendConfigured');
    assert.equal(await refused({ onchainTicker: 'ETH', signedTxHex: signed }), 'NoBackendConfigured');
    assert.equal(await refused({ onchainTicker: 'KETH', signedTxHex: signed }), 'NoBackendConfigured');
    // Larger than any node's pool takes (128 KiB): refused with a token, the connection kept.
    const oversized = await PAYER.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 1,
      to: RECIPIENT,
      data: `0x${'00'.repeat(RELAYED_TRANSACTION_BYTES.ethereum)}`,
      gas: 30_000_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    assert.equal(await refused({ onchainTicker: 'SETH', signedTxHex: oversized }), 'PayloadTooLarge');
    assert.equal(
      await refused({ onchainTicker: 'SETH', signedTxHex: signed.slice(0, 20) }),
      'InvalidSignedTxHex',
      'still connected',
    );
    assert.equal(await chain.getTransactionCount({ address: PAYER.address }), 1, 'nothing refused reached the node');
  },
);
