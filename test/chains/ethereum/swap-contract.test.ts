import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  BaseError,
  decodeErrorResult,
  keccak256,
  parseEther,
  parseEventLogs,
  type Account,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI as ABI } from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { encodeClaimCalldata, encodeFundCalldata, encodeRefundCalldata } from '../../../src/domain/ethereum.js';
import { orderIdToBytes16 } from '../../../src/domain/order-ids.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';

const REFUND_DELAY = 10n;
const STATE = { Empty: 0, Funded: 1, Claimed: 2, Refunded: 3 } as const;

interface Swap {
  orderId: string;
  preimage: string;
  paymentHash: string;
}

function newSwap(): Swap {
  const preimage = randomBytes(32);
  return {
    orderId: randomUUID(),
    preimage: preimage.toString('hex'),
    paymentHash: createHash('sha256').update(preimage).digest('hex'),
  };
}

describe('SwapContract on Anvil', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let contract: Address;
  let owner: Account;
  let user: Account;
  let stranger: Account;

  before(async () => {
    node = await startAnvil();
    [owner, user, stranger] = node.accounts as readonly Account[] as [Account, Account, Account];
    contract = await node.deploySwapContract(REFUND_DELAY, owner);
  });
  after(() => node?.stop());

  const submit = (from: Account, data: Hex, value = 0n) => node.wallet(from).sendTransaction({ to: contract, data, value });

  async function send(from: Account, data: Hex, value = 0n): Promise<TransactionReceipt> {
    const hash = await submit(from, data, value);
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  const fund = (from: Account, swap: Swap, value: bigint, paymentHash = swap.paymentHash) =>
    send(from, encodeFundCalldata(swap.orderId, paymentHash, owner.address), value);
  const claim = (from: Account, swap: Swap, preimage = swap.preimage) =>
    send(from, encodeClaimCalldata(swap.orderId, user.address, preimage));
  const refund = (from: Account, swap: Swap) => send(from, encodeRefundCalldata(swap.orderId));
  const adminRefund = (from: Account, swap: Swap) =>
    node.wallet(from)
      .writeContract({ address: contract, abi: ABI, functionName: 'adminRefund', args: [orderIdToBytes16(swap.orderId)] })
      .then((hash) => node.publicClient.waitForTransactionReceipt({ hash }));

  /** The contract refused with exactly this custom error (viem surfaces it from gas estimation). */
  async function assertReverts(attempt: Promise<unknown>, errorName: string): Promise<void> {
    const error = await attempt.then(
      () => assert.fail(`expected the contract to revert with ${errorName}`),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof BaseError, String(error));
    const withData = error.walk((cause) => typeof (cause as { data?: unknown }).data === 'string');
    const data = (withData as { data?: Hex } | null)?.data;
    assert.ok(data !== undefined, `no revert data in: ${error.shortMessage}`);
    assert.equal(decodeErrorResult({ abi: ABI, data }).errorName, errorName);
  }

  async function record(swap: Swap) {
    const [funder, paymentHash, amount, refundHeight, state] = await node.publicClient.readContract({
      address: contract,
      abi: ABI,
      functionName: 'orders',
      args: [orderIdToBytes16(swap.orderId)],
    });
    return { funder, paymentHash, amount, refundHeight, state };
  }

  const balance = (account: Account) => node.publicClient.getBalance({ address: account.address });

  /** Mines until the next transaction lands in block `height`. */
  async function mineUntilNextBlockIs(height: bigint): Promise<void> {
    const current = await node.blockNumber();
    assert.ok(height > current, `block ${height} is already mined`);
    if (height - current > 1n) await node.mine(Number(height - current - 1n));
  }

  test('the deployment records its owner and refund delay', async () => {
    assert.equal(await node.publicClient.readContract({ address: contract, abi: ABI, functionName: 'owner' }), owner.address);
    assert.equal(await node.publicClient.readContract({ address: contract, abi: ABI, functionName: 'refundDelay' }), REFUND_DELAY);
  });

  test('a funding locks the ether and fixes funder, payment hash and refund height', async () => {
    const swap = newSwap();
    const value = parseEther('0.5');
    const receipt = await fund(user, swap, value);
    const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderFunded' });
    assert.ok(event);
    assert.deepEqual(event.args, {
      orderUUID: orderIdToBytes16(swap.orderId),
      funder: user.address,
      paymentHash: `0x${swap.paymentHash}`,
      amount: value,
      totalFunded: value,
      refundHeight: receipt.blockNumber + REFUND_DELAY,
    });
    assert.deepEqual(await record(swap), {
      funder: user.address,
      paymentHash: `0x${swap.paymentHash}`,
      amount: value,
      refundHeight: receipt.blockNumber + REFUND_DELAY,
      state: STATE.Funded,
    });
  });

  test('a top-up adds to the amount and keeps the refund height of the first funding', async () => {
    const swap = newSwap();
    const first = await fund(user, swap, parseEther('0.2'));
    await node.mine(3);
    const second = await fund(stranger, swap, parseEther('0.3'));
    const [event] = parseEventLogs({ abi: ABI, logs: second.logs, eventName: 'OrderFunded' });
    assert.equal(event?.args.amount, parseEther('0.3'));
    assert.equal(event?.args.totalFunded, parseEther('0.5'));
    assert.equal(event?.args.funder, stranger.address);
    assert.equal(event?.args.refundHeight, first.blockNumber + REFUND_DELAY);
    const stored = await record(swap);
    assert.equal(stored.amount, parseEther('0.5'));
    assert.equal(stored.refundHeight, first.blockNumber + REFUND_DELAY);
    assert.equal(stored.funder, user.address, 'the first funder stays the refund recipient');
  });

  test('fundings the contract refuses: zero value, another payment hash, after the refund height', async () => {
    const swap = newSwap();
    await assertReverts(fund(user, swap, 0n), 'ZeroValue');
    const first = await fund(user, swap, parseEther('0.1'));
    await assertReverts(fund(user, swap, parseEther('0.1'), newSwap().paymentHash), 'PaymentHashMismatch');
    await mineUntilNextBlockIs(first.blockNumber + REFUND_DELAY + 1n);
    await assertReverts(fund(user, swap, parseEther('0.1')), 'FundingWindowClosed');
    assert.equal((await record(swap)).amount, parseEther('0.1'));
  });

  test('anyone claims with the preimage up to the refund height; the owner is paid; the event carries the preimage', async () => {
    const swap = newSwap();
    const value = parseEther('0.25');
    const funded = await fund(user, swap, value);
    const ownerBefore = await balance(owner);
    await mineUntilNextBlockIs(funded.blockNumber + REFUND_DELAY);
    const receipt = await claim(stranger, swap);
    assert.equal(receipt.blockNumber, funded.blockNumber + REFUND_DELAY);
    assert.equal(await balance(owner), ownerBefore + value);
    const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderClaimed' });
    assert.deepEqual(event?.args, { orderUUID: orderIdToBytes16(swap.orderId), preimage: `0x${swap.preimage}`, amount: value });
    assert.equal((await record(swap)).state, STATE.Claimed);
    await assertReverts(claim(stranger, swap), 'OrderNotOpen');
    await assertReverts(refund(user, swap), 'OrderNotOpen');
    await assertReverts(fund(user, swap, 1n), 'OrderNotOpen');
  });

  test('a wrong preimage and a claim after the refund height are refused', async () => {
    const swap = newSwap();
    const funded = await fund(user, swap, parseEther('0.1'));
    await assertReverts(claim(stranger, swap, newSwap().preimage), 'WrongPreimage');
    await mineUntilNextBlockIs(funded.blockNumber + REFUND_DELAY + 1n);
    await assertReverts(claim(stranger, swap), 'RefundHeightPassed');
    assert.equal((await record(swap)).state, STATE.Funded);
  });

  test('the payment hash is SHA-256 of the preimage, as in Lightning, not keccak256', async () => {
    const preimage = newSwap().preimage;
    const keccakSwap = { orderId: randomUUID(), preimage, paymentHash: keccak256(`0x${preimage}`).slice(2) };
    await fund(user, keccakSwap, 1000n);
    await assertReverts(claim(stranger, keccakSwap), 'WrongPreimage');
  });

  test('refund is refused up to the refund height, then pays the funder whoever sends it', async () => {
    const swap = newSwap();
    const value = parseEther('0.4');
    const funded = await fund(user, swap, value);
    await fund(stranger, swap, value);
    await mineUntilNextBlockIs(funded.blockNumber + REFUND_DELAY);
    await assertReverts(refund(stranger, swap), 'RefundHeightNotReached');
    await node.mine(1);
    const userBefore = await balance(user);
    const receipt = await refund(stranger, swap);
    assert.equal(await balance(user), userBefore + 2n * value);
    const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
    assert.deepEqual(event?.args, { orderUUID: orderIdToBytes16(swap.orderId), funder: user.address, amount: 2n * value, byAdmin: false });
    assert.equal((await record(swap)).state, STATE.Refunded);
    await assertReverts(refund(stranger, swap), 'OrderNotOpen');
    await assertReverts(claim(stranger, swap), 'OrderNotOpen');
  });

  test('adminRefund pays the funder at once when the owner sends it and is refused for anyone else', async () => {
    const swap = newSwap();
    const value = parseEther('0.3');
    await fund(user, swap, value);
    await assertReverts(adminRefund(stranger, swap), 'OnlyOwner');
    await assertReverts(adminRefund(user, swap), 'OnlyOwner');
    const userBefore = await balance(user);
    const receipt = await adminRefund(owner, swap);
    assert.equal(receipt.status, 'success');
    assert.equal(await balance(user), userBefore + value);
    const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
    assert.deepEqual(event?.args, { orderUUID: orderIdToBytes16(swap.orderId), funder: user.address, amount: value, byAdmin: true });
    await assertReverts(adminRefund(owner, swap), 'OrderNotOpen');
    await assertReverts(claim(stranger, swap), 'OrderNotOpen');
  });

  test('the contract holds exactly what open orders lock', async () => {
    const swap = newSwap();
    const before_ = await node.publicClient.getBalance({ address: contract });
    await fund(user, swap, 12345n);
    assert.equal(await node.publicClient.getBalance({ address: contract }), before_ + 12345n);
    await claim(stranger, swap);
    assert.equal(await node.publicClient.getBalance({ address: contract }), before_);
  });
  test('a revert to a snapshot (a reorg) drops a funding, and the same funding can land again', async () => {
    const swap = newSwap();
    const snapshot = await node.snapshot();
    const heightBefore = await node.blockNumber();
    await fund(user, swap, 777n);
    await node.mine(2);
    await node.revert(snapshot);
    assert.equal(await node.blockNumber(), heightBefore);
    assert.equal((await record(swap)).state, STATE.Empty);
    await fund(user, swap, 777n);
    assert.equal((await record(swap)).amount, 777n);
  });
  test('with automine off, fundings of several orders share one block', async () => {
    const [first, second] = [newSwap(), newSwap()];
    await node.setAutomine(false);
    try {
      const hashes = [
        await submit(user, encodeFundCalldata(first.orderId, first.paymentHash, owner.address), 5n),
        await submit(stranger, encodeFundCalldata(second.orderId, second.paymentHash, owner.address), 6n),
      ];
      await node.mine(1);
      const receipts = await Promise.all(hashes.map((hash) => node.publicClient.waitForTransactionReceipt({ hash })));
      assert.equal(receipts[0]!.blockNumber, receipts[1]!.blockNumber);
      assert.equal(receipts[0]!.blockNumber, await node.blockNumber());
    } finally {
      await node.setAutomine(true);
    }
    assert.equal((await record(first)).amount, 5n);
    assert.equal((await record(second)).amount, 6n);
  });
});
