/**
 * A provider's choice of slots to claim (the demo bot's and the daemon's), on real `OrderFunded` logs from Anvil: every slot of the
 * order made out to it with its payment hash and the market's asset, the user's two accounts included, and
 * none of an attacker's slots under the same order id.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Account, Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../src/chains/ethereum/swap-contract-artifact.js';
import { claimableFunders } from '../../src/domain/claimable-slots.js';
import {
  encodeClaimCalldata,
  encodeFundCalldata,
  encodeFundTokenCalldata,
  ZERO_ADDRESS,
} from '../../src/domain/ethereum.js';
import { orderIdToBytes16 } from '../../src/domain/order-ids.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';

const REFUND_DELAY = 100n;
const AMOUNT = 1_000_000_000_000_000n;
const PAYOUT_ADDRESS = privateKeyToAccount(generatePrivateKey()).address;

describe('the demo provider claims only the slots made out to it', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let contract: Address;
  let token: Address;
  const orderId = randomUUID();
  const preimage = randomBytes(32).toString('hex');
  const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
  const wrongHash = createHash('sha256').update(randomBytes(32)).digest('hex');
  const user = () => node.accounts[1]!;
  const userSecondAccount = () => node.accounts[2]!;
  const attacker = () => node.accounts[3]!;
  /** The attacker's other accounts: one slot per (order, funder). */
  const attackerToken = () => node.accounts[4]!;
  const attackerWrongHash = privateKeyToAccount(generatePrivateKey());
  /** Anyone may send a claim; the payout address, which starts empty, receives it. */
  const claimSender = () => node.accounts[0]!;
  const payout = () => PAYOUT_ADDRESS;

  async function send(from: Account, to: Address, data: `0x${string}`, value = 0n): Promise<void> {
    const hash = await node.wallet(from).sendTransaction({ to, data, value });
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
  }

  before(async () => {
    node = await startAnvil();
    contract = await node.deploySwapContract(REFUND_DELAY);
    token = await node.deployDemoToken({});
    await node.wallet().sendTransaction({ to: attackerWrongHash.address, value: AMOUNT });
    await node.mintDemoToken(token, attackerToken().address, AMOUNT);
    await node.approveToken(token, attackerToken(), contract, AMOUNT);
    // The user's slots, from two accounts, made out to the provider.
    await send(user(), contract, encodeFundCalldata(orderId, paymentHash, payout()), AMOUNT);
    await send(userSecondAccount(), contract, encodeFundCalldata(orderId, paymentHash, payout()), 2n * AMOUNT);
    // An attacker's slots under the same order id: paying the attacker, naming a hash the provider cannot open,
    // and in a token where the order is in ether.
    await send(attacker(), contract, encodeFundCalldata(orderId, paymentHash, attacker().address), 1n);
    await send(attackerWrongHash, contract, encodeFundCalldata(orderId, wrongHash, payout()), 1n);
    await send(attackerToken(), contract, encodeFundTokenCalldata(orderId, paymentHash, payout(), token, AMOUNT));
  });
  after(async () => {
    await node?.stop();
  });

  const fundedSlots = async () =>
    (
      await node.publicClient.getContractEvents({
        address: contract,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        eventName: 'OrderFunded',
        args: { orderUUID: orderIdToBytes16(orderId) },
        fromBlock: 0n,
      })
    ).map((log) => log.args);

  test("an ether order: the user's two slots, and claiming them pays the provider both amounts", async () => {
    const funders = claimableFunders(await fundedSlots(), { paymentHash, claimer: payout(), token: ZERO_ADDRESS });
    assert.deepEqual(funders, [user().address, userSecondAccount().address]);

    const before = await node.publicClient.getBalance({ address: payout() });
    for (const funder of funders) await send(claimSender(), contract, encodeClaimCalldata(orderId, funder, preimage));
    assert.equal((await node.publicClient.getBalance({ address: payout() })) - before, 3n * AMOUNT);
  });

  test('a token order: only the slot in that token, matched whatever the case of the addresses', async () => {
    const funders = claimableFunders(await fundedSlots(), {
      paymentHash: paymentHash.toUpperCase(),
      claimer: payout().toLowerCase(),
      token: token.toUpperCase().replace('0X', '0x'),
    });
    assert.deepEqual(funders, [attackerToken().address]);
  });
});
