import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { encodeFundCalldata, ZERO_ADDRESS } from '../../../src/domain/ethereum.js';
import { readEthereumSlot, sendEthereumClaim } from '../../../src/provider/ethereum/ethereum-claim.js';
import { slotProblem } from '../../../src/provider/ethereum/ethereum-slot.js';
import { decideClaimFee } from '../../../src/provider/rules/claim-fee-bump.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';

const REFUND_DELAY = 20n;
const AMOUNT = 1_234_567_890_123_456_789n;

function secretPair(): { preimage: string; paymentHash: string } {
  const preimage = randomBytes(32).toString('hex');
  return { preimage, paymentHash: createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex') };
}

describe('the provider claims an ether slot of the v2 swap contract on Anvil', { skip: anvilSkipReason }, () => {
  let anvil: AnvilNode;
  let contract: Hex;

  before(async () => {
    anvil = await startAnvil();
    contract = await anvil.deploySwapContract(REFUND_DELAY);
  });
  after(() => anvil.stop());

  const user = () => anvil.accounts[1]!;
  const provider = () => anvil.accounts[2]!;
  const attacker = () => anvil.accounts[3]!;

  async function fund(paymentHash: string, claimer: string, from = user()): Promise<string> {
    const orderId = randomUUID();
    const hash = await anvil.wallet(from).sendTransaction({
      to: contract,
      value: AMOUNT,
      data: encodeFundCalldata(orderId, paymentHash, claimer),
    });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
    return orderId;
  }

  const expectedFor = async (paymentHash: string) => ({
    payoutAddress: provider().address,
    paymentHash,
    token: ZERO_ADDRESS,
    currentHeight: Number(await anvil.blockNumber()),
  });

  test('a slot naming the provider is claimed with the preimage and pays the provider the full amount', async () => {
    const { preimage, paymentHash } = secretPair();
    const orderId = await fund(paymentHash, provider().address);
    const slot = await readEthereumSlot(anvil.publicClient, contract, orderId, user().address);
    assert.equal(slotProblem(slot, await expectedFor(paymentHash)), undefined);
    assert.equal(slot.amount, AMOUNT);

    const before = await anvil.publicClient.getBalance({ address: provider().address });
    const hash = await sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
      contract,
      orderId,
      funder: user().address,
      preimage,
    });
    const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    const afterBalance = await anvil.publicClient.getBalance({ address: provider().address });
    assert.equal(afterBalance - before, AMOUNT - receipt.gasUsed * receipt.effectiveGasPrice);
    assert.equal((await readEthereumSlot(anvil.publicClient, contract, orderId, user().address)).state, 'claimed');
  });

  test('a claim sent by anyone else still pays the provider, and a second claim is refused before it costs gas', async () => {
    const { preimage, paymentHash } = secretPair();
    const orderId = await fund(paymentHash, provider().address);
    const before = await anvil.publicClient.getBalance({ address: provider().address });
    const hash = await sendEthereumClaim(anvil.publicClient, anvil.wallet(attacker()), {
      contract,
      orderId,
      funder: user().address,
      preimage,
    });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
    assert.equal((await anvil.publicClient.getBalance({ address: provider().address })) - before, AMOUNT);
    const nonceBefore = await anvil.publicClient.getTransactionCount({ address: provider().address });
    await assert.rejects(
      sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
        contract,
        orderId,
        funder: user().address,
        preimage,
      }),
      /SlotNotOpen/,
    );
    assert.equal(await anvil.publicClient.getTransactionCount({ address: provider().address }), nonceBefore);
  });

  test('slots that are not the provider order’s funding are named as such', async () => {
    const { paymentHash } = secretPair();
    const forAttacker = await fund(paymentHash, attacker().address, attacker());
    assert.equal(
      slotProblem(
        await readEthereumSlot(anvil.publicClient, contract, forAttacker, attacker().address),
        await expectedFor(paymentHash),
      ),
      'not-our-claimer',
    );
    const otherHash = await fund(secretPair().paymentHash, provider().address);
    assert.equal(
      slotProblem(
        await readEthereumSlot(anvil.publicClient, contract, otherHash, user().address),
        await expectedFor(paymentHash),
      ),
      'payment-hash-mismatch',
    );
    assert.equal(
      slotProblem(
        await readEthereumSlot(anvil.publicClient, contract, randomUUID(), user().address),
        await expectedFor(paymentHash),
      ),
      'not-funded',
    );
  });

  test('a wrong preimage is refused before it costs gas', async () => {
    const { paymentHash } = secretPair();
    const orderId = await fund(paymentHash, provider().address);
    await assert.rejects(
      sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
        contract,
        orderId,
        funder: user().address,
        preimage: secretPair().preimage,
      }),
      /WrongPreimage/,
    );
  });

  test('at the refund height the slot is past claiming, and the contract agrees', async () => {
    const { preimage, paymentHash } = secretPair();
    const orderId = await fund(paymentHash, provider().address);
    const slot = await readEthereumSlot(anvil.publicClient, contract, orderId, user().address);
    await anvil.mine(slot.refundHeight - Number(await anvil.blockNumber()));
    assert.equal(slotProblem(slot, await expectedFor(paymentHash)), 'refund-height-passed');
    await assert.rejects(
      sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
        contract,
        orderId,
        funder: user().address,
        preimage,
      }),
      /RefundHeightPassed/,
    );
  });

  test('a claim stuck near the refund height is replaced at the bumped fee with the same nonce, and only the replacement lands', async () => {
    const { preimage, paymentHash } = secretPair();
    const orderId = await fund(paymentHash, provider().address);
    const slot = await readEthereumSlot(anvil.publicClient, contract, orderId, user().address);
    const block = await anvil.publicClient.getBlock();
    const baseFee = block.baseFeePerGas ?? 0n;
    const nonce = await anvil.publicClient.getTransactionCount({ address: provider().address });
    await anvil.setAutomine(false);
    try {
      const lowTip = 1n;
      const first = await sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
        contract,
        orderId,
        funder: user().address,
        preimage,
        nonce,
        fees: { maxFeePerGas: baseFee * 2n + lowTip, maxPriorityFeePerGas: lowTip },
      });
      const currentHeight = Number(await anvil.blockNumber()) + 1;
      const decision = decideClaimFee(
        {
          currentHeight,
          refundHeight: slot.refundHeight,
          estimatedRate: lowTip,
          broadcast: { height: currentHeight - 1, rate: lowTip },
        },
        {
          stuckAfterBlocks: 3,
          urgentBlocks: Number(REFUND_DELAY),
          bumpPercent: 200n,
          minimumIncrement: 1n,
          maximumRate: 10n ** 12n,
        },
      );
      assert.equal(decision.action, 'broadcast', 'within the urgent window, a block without confirmation bumps');
      assert.ok(decision.action === 'broadcast' && decision.rate === 2n);
      const replacement = await sendEthereumClaim(anvil.publicClient, anvil.wallet(provider()), {
        contract,
        orderId,
        funder: user().address,
        preimage,
        nonce,
        fees: { maxFeePerGas: (baseFee * 2n + lowTip) * 2n, maxPriorityFeePerGas: decision.rate },
      });
      assert.notEqual(replacement, first);
      await anvil.mine(1);
      const receipt = await anvil.publicClient.getTransactionReceipt({ hash: replacement });
      assert.equal(receipt.status, 'success');
      await assert.rejects(anvil.publicClient.getTransactionReceipt({ hash: first }), /could not be found/);
      assert.equal((await readEthereumSlot(anvil.publicClient, contract, orderId, user().address)).state, 'claimed');
    } finally {
      await anvil.setAutomine(true);
    }
  });
});
