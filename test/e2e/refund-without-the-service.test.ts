/**
 * Getting an Ethereum refund with the service gone: a user funds an ether order and a token order from the service's
 * quotes, the service is stopped (its port no longer listening), and from the library alone, through the user's own
 * node, the user lists its slots (`refundableSlots`), waits for the refund height and sends each refund
 * (`ethereumRefundTransaction(slot)`), getting every base unit back. A stranger's slot in the same order, a look-alike
 * contract's logs, logs a node forges and answers no node gives are tried on the way.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, encodeEventTopics, http, type Address, type Hex } from 'viem';
import {
  createLnswapClient,
  ethereumRefundTransaction,
  fundingTransactions,
  refundableSlots,
  UnsafeFundingDetails,
  type FundingDetailsView,
  type RefundableSlot,
  type SlotReader,
} from '../../src/client/index.js';
import { SWAP_CONTRACT_V3_ARTIFACT_ABI } from '../../src/chains/ethereum/swap-contract-v3-artifact.js';
import { parseDecimalAmount } from '../../src/domain/amounts.js';
import { encodeClaimCalldata, encodeFundCalldata, encodeRefundCalldata } from '../../src/domain/ethereum.js';
import { orderIdToBytes16 } from '../../src/domain/order-ids.js';
import { anvilSkipReason, type AnvilNode } from '../support/anvil.js';
import {
  CONFIRMATIONS,
  ETHER_MARKET,
  PROVIDER_PAYOUT,
  startEthereumSwapWorld,
  TOKEN_DECIMALS,
  TOKEN_MARKET,
  type EthereumSwapWorld,
} from '../support/ethereum-swap-world.js';
import { deployHostileContract } from '../support/hostile-contracts.js';
import { makeInvoice, type SignedInvoice } from '../support/invoices.js';
import { LogInjectingNode } from '../support/log-injecting-node.js';

const REFUND_DELAY = 20n;
const TOP_UP = 12_345n;
const STRANGER_FUNDING = 10n ** 18n;

interface FundedOrder {
  readonly invoice: SignedInvoice;
  readonly quote: FundingDetailsView;
  /** The block of the slot's first funding, which fixes its refund height. */
  readonly fundedAt: bigint;
  readonly amount: bigint;
}

describe('an Ethereum refund with the service stopped, from the library alone', { skip: anvilSkipReason }, () => {
  let world: EthereumSwapWorld | undefined;
  let node: AnvilNode;
  let contract: Address;
  let token: Address;
  let fromBlock: bigint;
  let etherOrder: FundedOrder;
  let tokenOrder: FundedOrder;
  let claimedOrder: FundedOrder;
  const user = () => world!.user;
  const stranger = () => node.accounts[2]!;
  const lowercase = (address: string) => address.toLowerCase() as Address;
  const slotsOf = (funder: Address, client: SlotReader = node.publicClient) =>
    refundableSlots({ client, funder, contracts: [contract], fromBlock });
  const mineTo = async (height: bigint) => node.mine(Number(height - (await node.blockNumber())));

  before(async () => {
    world = await startEthereumSwapWorld({ refundDelay: REFUND_DELAY, contractVersion: 3 });
    ({ node, contract, token } = world);
  });
  after(async () => {
    await world?.close();
  });

  test('the user funds an ether order and a token order from the service; the service is then stopped', async () => {
    const client = createLnswapClient({ url: world!.harness.service.url, timeoutMs: 5_000 });
    try {
      fromBlock = (await node.blockNumber()) + 1n;
      const wallet = node.wallet(user());
      const fund = async (market: string): Promise<FundedOrder> => {
        const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
        const quote = await client.requestQuote({ market, invoice: invoice.invoice });
        let fundedAt = 0n;
        for (const transaction of fundingTransactions(quote, {
          paymentHash: invoice.paymentHash,
          swapContract: contract,
        })) {
          const receipt = await node.publicClient.waitForTransactionReceipt({
            hash: await wallet.sendTransaction(transaction),
          });
          assert.equal(receipt.status, 'success');
          fundedAt = receipt.blockNumber;
        }
        const decimals = market === TOKEN_MARKET ? TOKEN_DECIMALS : 18;
        const amount = parseDecimalAmount(quote.amount, decimals);
        assert.ok(amount !== undefined);
        return { invoice, quote, fundedAt, amount };
      };
      etherOrder = await fund(ETHER_MARKET);
      tokenOrder = await fund(TOKEN_MARKET);
      claimedOrder = await fund(ETHER_MARKET);
      const funded = [etherOrder, tokenOrder, claimedOrder].map(({ quote }) =>
        client.waitForState(quote.orderId, ['Funded'], { timeoutMs: 10_000 }),
      );
      await node.mine(CONFIRMATIONS - 1);
      await Promise.all(funded);
    } finally {
      client.close();
    }
    const url = world!.harness.service.url;
    await world!.stopService();
    const refused = await fetch(`${url}/api/markets`).then(
      () => undefined,
      (error: unknown) => (error as { cause?: { code?: string } }).cause?.code,
    );
    assert.equal(refused, 'ECONNREFUSED', 'the service no longer listens');
  });

  test('with the service gone: the slots are listed from the chain; a claimed one is not open', async () => {
    const { orderId } = etherOrder.quote;
    const { paymentHash } = etherOrder.invoice;
    // A stranger's slot in the user's order, and a top-up of the user's own slot.
    await send(stranger(), {
      to: contract,
      data: encodeFundCalldata(orderId, paymentHash, PROVIDER_PAYOUT),
      value: STRANGER_FUNDING,
    });
    await send(user(), {
      to: contract,
      data: encodeFundCalldata(orderId, paymentHash, PROVIDER_PAYOUT),
      value: TOP_UP,
    });
    // Anyone may claim with the preimage; the contract pays the slot's claimer.
    const claimed = claimedOrder.quote.orderId;
    await send(node.accounts[3]!, {
      to: contract,
      data: encodeClaimCalldata(claimed, user().address, claimedOrder.invoice.preimage),
    });

    const slots = await slotsOf(user().address);
    const tip = await node.blockNumber();
    assert.deepEqual(slots, [
      slotOf(etherOrder, { amount: etherOrder.amount + TOP_UP, asOfBlock: tip }),
      slotOf(tokenOrder, { token: lowercase(token), asOfBlock: tip }),
      slotOf(claimedOrder, { state: 'claimed', open: false, asOfBlock: tip }),
    ]);
    assert.throws(
      () => ethereumRefundTransaction(slots[0]!),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'RefundHeightNotReached',
    );
    assert.throws(
      () => ethereumRefundTransaction(slots[2]!),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'SlotNotOpen',
    );
    assert.deepEqual(
      (await slotsOf(stranger().address)).map(({ orderId: id, funder, amount }) => ({ id, funder, amount })),
      [{ id: orderId, funder: lowercase(stranger().address), amount: STRANGER_FUNDING }],
    );
  });

  test('refundable from the block the refund height is reached; the refund is mined and the money is back', async () => {
    const refundHeight = etherOrder.fundedAt + REFUND_DELAY;
    await mineTo(refundHeight - 1n);
    const [early] = await slotsOf(user().address);
    assert.ok(early !== undefined && !early.refundableNow);
    // The contract agrees: a refund sent now would be mined at the refund height, which it refuses.
    await assert.rejects(
      node.publicClient.estimateGas({ account: user(), to: contract, data: encodeRefundCalldata(early.orderId) }),
      /RefundHeightNotReached|revert/u,
    );

    await node.mine(1);
    const [ether] = await slotsOf(user().address);
    assert.ok(ether?.refundableNow);
    assert.deepEqual(ethereumRefundTransaction(ether), {
      to: lowercase(contract),
      data: encodeRefundCalldata(etherOrder.quote.orderId),
      value: 0n,
    });
    for (const [altered, fault] of [
      [{ ...ether, orderId: 'not an order' }, 'WrongOrder'],
      [{ ...ether, contract: '0xnot' as Address }, 'MalformedTransaction'],
    ] as const) {
      assert.throws(
        () => ethereumRefundTransaction(altered),
        (error) => error instanceof UnsafeFundingDetails && error.fault === fault,
      );
    }
    // The refund names no funder: the contract refunds its sender's own slot, so another account sending the
    // user's refund is refused and the user's slot stays theirs.
    await assert.rejects(
      node.publicClient.estimateGas({ account: node.accounts[4]!, ...ethereumRefundTransaction(ether) }),
      /SlotNotOpen|revert/u,
    );
    const before = await node.publicClient.getBalance({ address: user().address });
    const receipt = await send(user(), ethereumRefundTransaction(ether));
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    assert.equal(await node.publicClient.getBalance({ address: user().address }), before - gas + ether.amount);

    await mineTo(tokenOrder.fundedAt + REFUND_DELAY);
    const tokenSlot = (await slotsOf(user().address)).find((slot) => slot.token !== undefined);
    assert.ok(tokenSlot?.refundableNow);
    const tokensBefore = await node.tokenBalance(token, user().address);
    await send(user(), ethereumRefundTransaction(tokenSlot));
    assert.equal(await node.tokenBalance(token, user().address), tokensBefore + tokenOrder.amount);

    const after = await slotsOf(user().address);
    assert.deepEqual(
      after.map(({ orderId, state: slotState, open, refundableNow }) => ({ orderId, slotState, open, refundableNow })),
      [etherOrder, tokenOrder, claimedOrder].map(({ quote }, index) => ({
        orderId: quote.orderId,
        slotState: index === 2 ? 'claimed' : 'refunded',
        open: false,
        refundableNow: false,
      })),
    );
    // The stranger's slot in the same order is untouched by the user's refund.
    const [strangers] = await slotsOf(stranger().address);
    assert.equal(strangers?.open, true);
    assert.equal(strangers.amount, STRANGER_FUNDING);
  });

  test("a look-alike contract's logs, slipped in by the node, list nothing", async () => {
    const lookAlike = await deployHostileContract(node, 'LookAlikeSwapContract', [REFUND_DELAY, stranger().address]);
    const { orderId } = etherOrder.quote;
    await send(user(), {
      to: lookAlike,
      data: encodeFundCalldata(orderId, etherOrder.invoice.paymentHash, PROVIDER_PAYOUT),
      value: 1n,
    });
    await send(user(), {
      to: lookAlike,
      data: encodeFundCalldata(randomUUID(), etherOrder.invoice.paymentHash, PROVIDER_PAYOUT),
      value: 1n,
    });
    const honest = await slotsOf(user().address);
    const injecting = new LogInjectingNode(node.rpcUrl, lookAlike);
    try {
      const client = createPublicClient({ transport: http(await injecting.start(), { retryCount: 0 }) });
      assert.deepEqual(await slotsOf(user().address, client), honest);
      assert.equal(injecting.injectedLogs, 2, 'the node did slip both look-alike logs in');
    } finally {
      await injecting.stop();
    }
    // Trusted, the same contract would be believed: the check that ignores it is the address.
    const believed = await refundableSlots({
      client: node.publicClient,
      funder: user().address,
      contracts: [contract, lookAlike],
      fromBlock,
    });
    assert.equal(believed.filter((slot) => slot.contract === lowercase(lookAlike)).length, 2);
  });

  test('logs a node forges are only pointers: each is read back from the contract, or ignored unread', async () => {
    const honest = await slotsOf(user().address);
    const lying = await startLyingNode(node.rpcUrl);
    try {
      const forged = (address: string, orderId: string, funder: Address, removed = false) => ({
        ...forgedLog(address, orderId, funder),
        removed,
      });
      lying.lies.set('eth_getLogs', (logs) => [
        ...(logs as unknown[]),
        // Read back: the contract holds no such slot.
        forged(contract, randomUUID(), user().address),
        // Never read: another funder's, another contract's, a removed one.
        forged(contract, randomUUID(), stranger().address),
        forged(stranger().address, randomUUID(), user().address),
        forged(contract, randomUUID(), user().address, true),
      ]);
      const client = createPublicClient({ transport: http(lying.url, { retryCount: 0 }) });
      assert.deepEqual(await slotsOf(user().address, client), honest);
      assert.equal(lying.calls.filter((method) => method === 'eth_call').length, honest.length + 1);
    } finally {
      await lying.close();
    }
  });

  test('logs are read in ranges of blocksPerRequest blocks, for a node that bounds them, to the same slots', async () => {
    const honest = await slotsOf(user().address);
    const lying = await startLyingNode(node.rpcUrl);
    try {
      const client = createPublicClient({ transport: http(lying.url, { retryCount: 0 }) });
      const ranged = await refundableSlots({
        client,
        funder: user().address,
        contracts: [contract],
        fromBlock,
        blocksPerRequest: 3n,
      });
      assert.deepEqual(ranged, honest);
      const blocks = (await node.blockNumber()) - fromBlock + 1n;
      assert.equal(lying.calls.filter((method) => method === 'eth_getLogs').length, Number((blocks + 2n) / 3n));
    } finally {
      await lying.close();
    }
  });

  test('a node answering what no node answers is a refusal naming it, never a TypeError', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const cases: [method: string, lie: (honest: unknown) => unknown][] = [
      ['eth_blockNumber', () => null],
      ['eth_blockNumber', () => '0x'],
      ['eth_blockNumber', () => 42],
      ['eth_blockNumber', () => huge],
      ['eth_blockNumber', () => huge.slice(0, 5 * 1024 * 1024)],
      ['eth_blockNumber', () => `0x${'f'.repeat(40)}`],
      ['eth_getLogs', () => null],
      ['eth_getLogs', () => '0x'],
      ['eth_getLogs', () => 42],
      ['eth_getLogs', () => huge],
      ['eth_getLogs', () => ({})],
      ['eth_getLogs', () => [null]],
      ['eth_getLogs', (logs) => (logs as object[]).map((log) => ({ ...log, address: 42 }))],
      ['eth_getLogs', (logs) => (logs as object[]).map((log) => ({ ...log, topics: ['0x12'] }))],
      ['eth_getLogs', (logs) => (logs as object[]).map((log) => ({ ...log, removed: 'no' }))],
      ['eth_call', () => null],
      ['eth_call', () => '0x'],
      ['eth_call', () => 42],
      ['eth_call', () => huge],
      ['eth_call', (slot) => (slot as string).slice(0, 66)],
      ['eth_call', (slot) => `${(slot as string).slice(0, -64)}${'7'.padStart(64, '0')}`],
    ];
    const lying = await startLyingNode(node.rpcUrl);
    try {
      const client = createPublicClient({ transport: http(lying.url, { retryCount: 0 }) });
      for (const [index, [method, lie]] of cases.entries()) {
        lying.lies.clear();
        lying.lies.set(method, lie);
        await assert.rejects(
          slotsOf(user().address, client),
          (error) => error instanceof UnsafeFundingDetails && error.fault === 'NodeAnswerUnreadable',
          `case ${index}, ${method}`,
        );
      }
      lying.lies.clear();
      assert.equal((await slotsOf(user().address, client)).length, 3, 'the node answering honestly again');
    } finally {
      await lying.close();
    }
    await assert.rejects(
      slotsOf(user().address, createPublicClient({ transport: http(lying.url, { retryCount: 0 }) })),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'NodeAnswerUnreadable',
      'a node no longer listening',
    );
  });

  test('a funder or contract that is not an address is refused before the node is asked', async () => {
    const calls = { count: 0 };
    const client: SlotReader = {
      request: async (args) => {
        calls.count += 1;
        return node.publicClient.request(args as never);
      },
    };
    await assert.rejects(
      refundableSlots({ client, funder: 'not an address', contracts: [contract], fromBlock }),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'WrongFunder',
    );
    for (const contracts of [[], [`${contract}00`]]) {
      await assert.rejects(
        refundableSlots({ client, funder: user().address, contracts, fromBlock }),
        (error) => error instanceof UnsafeFundingDetails && error.fault === 'WrongContract',
      );
    }
    await assert.rejects(
      refundableSlots({ client, funder: user().address, contracts: [contract], fromBlock: -1n }),
      RangeError,
    );
    assert.equal(calls.count, 0);
  });

  /** What the contract holds for the user's slot of `order`, as `refundableSlots` should list it. */
  function slotOf(order: FundedOrder, overrides: Partial<RefundableSlot>): RefundableSlot {
    return {
      orderId: order.quote.orderId,
      contract: lowercase(contract),
      funder: lowercase(user().address),
      amount: order.amount,
      token: undefined,
      paymentHash: order.invoice.paymentHash,
      claimer: PROVIDER_PAYOUT,
      refundHeight: order.fundedAt + REFUND_DELAY,
      state: 'funded',
      open: true,
      refundableNow: false,
      asOfBlock: 0n,
      ...overrides,
    };
  }

  async function send(
    account: (typeof node.accounts)[number],
    transaction: { to: Address; data: Hex; value?: bigint },
  ) {
    const receipt = await node.publicClient.waitForTransactionReceipt({
      hash: await node.wallet(account).sendTransaction(transaction),
    });
    assert.equal(receipt.status, 'success');
    return receipt;
  }
});

/** An `OrderFunded` log as a node would answer it, of no transaction at all. */
function forgedLog(address: string, orderId: string, funder: Address) {
  const topics = encodeEventTopics({
    abi: SWAP_CONTRACT_V3_ARTIFACT_ABI,
    eventName: 'OrderFunded',
    args: { orderUUID: orderIdToBytes16(orderId), funder },
  });
  return {
    address,
    topics,
    data: '0x',
    blockNumber: '0x1',
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionHash: `0x${'cd'.repeat(32)}`,
    transactionIndex: '0x0',
    logIndex: '0x0',
  };
}

interface LyingNode {
  readonly url: string;
  /** By method: what the node answers instead of the honest result it is given. */
  readonly lies: Map<string, (honest: unknown) => unknown>;
  /** Every method asked, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

/** A JSON-RPC node in front of a real one, over real HTTP, answering as it does except for the methods it lies to. */
async function startLyingNode(upstream: string): Promise<LyingNode> {
  const lies = new Map<string, (honest: unknown) => unknown>();
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const { method } = JSON.parse(body) as { method: string };
      calls.push(method);
      const honest = (await (
        await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ).json()) as { result?: unknown };
      const lie = lies.get(method);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(lie === undefined ? honest : { ...honest, result: lie(honest.result) }));
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lies,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
