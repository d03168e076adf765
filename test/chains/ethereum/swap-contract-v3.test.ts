import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  encodeFunctionData,
  getAddress,
  hashTypedData,
  parseEther,
  parseEventLogs,
  parseSignature,
  recoverAddress,
  serializeCompactSignature,
  serializeSignature,
  signatureToCompactSignature,
  toFunctionSelector,
  toHex,
  type Account,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type HDAccount } from 'viem/accounts';
import { SWAP_CONTRACT_V3_ARTIFACT_ABI as ABI } from '../../../src/chains/ethereum/swap-contract-v3-artifact.js';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import {
  ZERO_ADDRESS,
  encodeAdminRefundCalldata,
  encodeClaimCalldata,
  encodeFundCalldata,
  encodeFundTokenCalldata,
  encodeRefundCalldata,
} from '../../../src/domain/ethereum.js';
import { orderIdToBytes16 } from '../../../src/domain/order-ids.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../../support/anvil.js';
import { deployHostileContract, hostileContract } from '../../support/hostile-contracts.js';
import { revertAsserter } from './contract-reverts.js';
import {
  COOPERATIVE_REFUND_TYPES,
  deploySwapContractV3,
  signCooperativeRefund,
  type CooperativeRefundDomain,
} from './swap-contract-v3.js';

const REFUND_DELAY = 10n;
const STATE = { Empty: 0, Funded: 1, Claimed: 2, Refunded: 3 } as const;
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const assertReverts = revertAsserter(ABI);

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

const gasCost = (receipt: TransactionReceipt): bigint => receipt.gasUsed * receipt.effectiveGasPrice;

const refundCooperativeCalldata = (orderId: string, funder: Address, signature: Hex): Hex =>
  encodeFunctionData({
    abi: ABI,
    functionName: 'refundCooperative',
    args: [orderIdToBytes16(orderId), funder, signature],
  });

/** The same signature with s replaced by n - s and v flipped: it recovers the same address (malleability). */
function highSTwin(signature: Hex): Hex {
  const { r, s, v } = parseSignature(signature);
  assert.ok(v === 27n || v === 28n);
  return serializeSignature({ r, s: toHex(SECP256K1_ORDER - BigInt(s), { size: 32 }), v: v === 27n ? 28n : 27n });
}

describe('SwapContractV3 cooperative refunds on Anvil', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let contract: Address;
  let domain: CooperativeRefundDomain;
  let owner: HDAccount;
  let user: HDAccount;
  let provider: HDAccount;
  let relayer: HDAccount;
  let stranger: HDAccount;

  before(async () => {
    node = await startAnvil();
    [owner, user, provider, relayer, stranger] = node.accounts as [
      HDAccount,
      HDAccount,
      HDAccount,
      HDAccount,
      HDAccount,
    ];
    contract = await deploySwapContractV3(node, REFUND_DELAY, owner);
    domain = { chainId: node.chain.id, verifyingContract: contract };
  });
  after(() => node?.stop());

  async function send(from: Account, data: Hex, value = 0n, to: Address = contract): Promise<TransactionReceipt> {
    const hash = await node.wallet(from).sendTransaction({ to, data, value });
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  const fund = (from: Account, swap: Swap, value: bigint, to: Address = contract) =>
    send(from, encodeFundCalldata(swap.orderId, swap.paymentHash, provider.address), value, to);
  const refundCooperative = (swap: Swap, funder: Address, signature: Hex, to: Address = contract) =>
    send(relayer, refundCooperativeCalldata(swap.orderId, funder, signature), 0n, to);
  /** The claimer's signature for `funder`'s slot of the order on the contract under test. */
  const claimerSignature = (swap: Swap, funder: Address) =>
    signCooperativeRefund(provider, domain, swap.orderId, funder);

  async function slot(swap: Swap, funder: Address, address: Address = contract) {
    const [, , , amount, refundHeight, state] = await node.publicClient.readContract({
      address,
      abi: ABI,
      functionName: 'slots',
      args: [orderIdToBytes16(swap.orderId), funder],
    });
    return { amount, refundHeight, state };
  }

  const balance = (address: Address) => node.publicClient.getBalance({ address });

  /** A refused refundCooperative leaves the slot open and its money in the contract. */
  async function assertRefusedAndUntouched(swap: Swap, funder: Address, signature: Hex, errorName: string) {
    const [slotBefore, contractBefore] = await Promise.all([slot(swap, funder), balance(contract)]);
    await assertReverts(refundCooperative(swap, funder, signature), errorName);
    assert.deepEqual(await slot(swap, funder), slotBefore);
    assert.equal(await balance(contract), contractBefore);
  }

  describe('pays the funder the whole slot', () => {
    test("ether: a relayer sends the claimer's signature and pays the gas; the funder gets every wei back", async () => {
      const swap = newSwap();
      await fund(user, swap, parseEther('0.4'));
      await fund(user, swap, parseEther('0.35'));
      const value = parseEther('0.75');
      const signature = await claimerSignature(swap, user.address);
      const before = await Promise.all([balance(user.address), balance(provider.address), balance(relayer.address)]);
      const contractBefore = await balance(contract);
      const receipt = await refundCooperative(swap, user.address, signature);
      assert.ok(receipt.blockNumber < (await slot(swap, user.address)).refundHeight, 'sent before the refund height');
      assert.deepEqual(
        await Promise.all([balance(user.address), balance(provider.address), balance(relayer.address)]),
        [before[0] + value, before[1], before[2] - gasCost(receipt)],
      );
      assert.equal(await balance(contract), contractBefore - value);
      const events = parseEventLogs({ abi: ABI, logs: receipt.logs });
      assert.deepEqual(
        events.map(({ eventName, args }) => ({ eventName, args })),
        [
          {
            eventName: 'RefundAuthorized',
            args: { orderUUID: orderIdToBytes16(swap.orderId), funder: user.address, claimer: provider.address },
          },
          {
            eventName: 'OrderRefunded',
            args: {
              orderUUID: orderIdToBytes16(swap.orderId),
              funder: user.address,
              token: ZERO_ADDRESS,
              amount: value,
              byAdmin: false,
            },
          },
        ],
      );
      assert.equal((await slot(swap, user.address)).state, STATE.Refunded);
    });

    test('tokens: the funder gets the whole token slot back, the claimer and the relayer none', async () => {
      const token = getAddress(await node.deployDemoToken({ decimals: 6 }));
      const swap = newSwap();
      await node.mintDemoToken(token, user.address, 2_500_000n);
      await node.approveToken(token, user, contract, 2_500_000n);
      await send(user, encodeFundTokenCalldata(swap.orderId, swap.paymentHash, provider.address, token, 2_500_000n));
      assert.equal(await node.tokenBalance(token, user.address), 0n);
      const receipt = await refundCooperative(swap, user.address, await claimerSignature(swap, user.address));
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
      assert.deepEqual(event?.args, {
        orderUUID: orderIdToBytes16(swap.orderId),
        funder: user.address,
        token,
        amount: 2_500_000n,
        byAdmin: false,
      });
      assert.equal(await node.tokenBalance(token, user.address), 2_500_000n);
      assert.equal(await node.tokenBalance(token, contract), 0n);
      assert.equal(await node.tokenBalance(token, provider.address), 0n);
      assert.equal(await node.tokenBalance(token, relayer.address), 0n);
    });

    test('after the refund height too, while the slot is open', async () => {
      const swap = newSwap();
      const funding = await fund(user, swap, 5_000n);
      await node.mine(Number(REFUND_DELAY) + 3);
      const before = await balance(user.address);
      const receipt = await refundCooperative(swap, user.address, await claimerSignature(swap, user.address));
      assert.ok(receipt.blockNumber > funding.blockNumber + REFUND_DELAY);
      assert.equal(await balance(user.address), before + 5_000n);
    });

    test("the unchanged watcher reads it as the slot's refund (byAdmin false) from the second version's events", async () => {
      const swap = newSwap();
      await fund(user, swap, 9_000n);
      const receipt = await refundCooperative(swap, user.address, await claimerSignature(swap, user.address));
      const watcher = new EthereumBackend({ rpcUrl: node.rpcUrl, swapContractAddress: contract });
      const height = Number(receipt.blockNumber);
      const order = { orderId: swap.orderId, payToAddress: contract.toLowerCase(), paymentHash: swap.paymentHash };
      const observations = await watcher.observations(
        { from: height, to: height },
        { orders: [order], fundingOutputs: [] },
      );
      assert.deepEqual(
        observations.map((observation) => ({ ...observation, block: undefined, position: undefined })),
        [
          {
            orderId: swap.orderId,
            txId: receipt.transactionHash,
            position: undefined,
            block: undefined,
            kind: 'refund',
            amount: 9_000n,
            byAdmin: false,
            funder: user.address.toLowerCase(),
          },
        ],
      );
    });
  });

  describe('a signature is worth nothing for anything but its own slot, contract and chain: SignerNotClaimer', () => {
    test("another funder's slot of the same order", async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      await fund(stranger, swap, 2_000n);
      const forUser = await claimerSignature(swap, user.address);
      await assertRefusedAndUntouched(swap, stranger.address, forUser, 'SignerNotClaimer');
      await refundCooperative(swap, user.address, forUser);
      assert.equal((await slot(swap, stranger.address)).state, STATE.Funded);
    });

    test("the same funder's slot of another order", async () => {
      const swap = newSwap();
      const other = newSwap();
      await fund(user, swap, 1_000n);
      await fund(user, other, 1_000n);
      await assertRefusedAndUntouched(
        other,
        user.address,
        await claimerSignature(swap, user.address),
        'SignerNotClaimer',
      );
    });

    test('the same slot in another deployment of the contract', async () => {
      const second = await deploySwapContractV3(node, REFUND_DELAY, owner);
      const swap = newSwap();
      await fund(user, swap, 3_000n);
      await fund(user, swap, 3_000n, second);
      const forFirst = await claimerSignature(swap, user.address);
      await assertReverts(refundCooperative(swap, user.address, forFirst, second), 'SignerNotClaimer');
      assert.equal((await slot(swap, user.address, second)).state, STATE.Funded);
      await refundCooperative(swap, user.address, forFirst);
      const forSecond = await signCooperativeRefund(
        provider,
        { ...domain, verifyingContract: second },
        swap.orderId,
        user.address,
      );
      await refundCooperative(swap, user.address, forSecond, second);
    });

    test('the same slot at the same address on a chain with another chain id', async () => {
      const otherChain = await startAnvil({ chainId: 1337 });
      try {
        const [otherOwner, otherUser, , otherRelayer] = otherChain.accounts as [
          HDAccount,
          HDAccount,
          HDAccount,
          HDAccount,
        ];
        // The same deployer's first transaction on both chains: the contract has the same address on both.
        const twin = await deploySwapContractV3(otherChain, REFUND_DELAY, otherOwner);
        assert.equal(twin, contract);
        const swap = newSwap();
        await fund(user, swap, 4_000n);
        const fundTwin = await otherChain.wallet(otherUser).sendTransaction({
          to: twin,
          data: encodeFundCalldata(swap.orderId, swap.paymentHash, provider.address),
          value: 4_000n,
        });
        await otherChain.publicClient.waitForTransactionReceipt({ hash: fundTwin });
        const thisChains = await claimerSignature(swap, user.address);
        const replay = otherChain.wallet(otherRelayer).sendTransaction({
          to: twin,
          data: refundCooperativeCalldata(swap.orderId, user.address, thisChains),
        });
        await assertReverts(replay, 'SignerNotClaimer');
        const forMainnet = await signCooperativeRefund(provider, { ...domain, chainId: 1 }, swap.orderId, user.address);
        await assertRefusedAndUntouched(swap, user.address, forMainnet, 'SignerNotClaimer');
        await refundCooperative(swap, user.address, thisChains);
      } finally {
        await otherChain.stop();
      }
    });

    test("a stranger's, the funder's own and the owner's signatures", async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      for (const signer of [privateKeyToAccount(generatePrivateKey()), stranger, user, owner]) {
        const signature = await signCooperativeRefund(signer, domain, swap.orderId, user.address);
        await assertRefusedAndUntouched(swap, user.address, signature, 'SignerNotClaimer');
      }
    });
  });

  describe('malformed and malleable signatures', () => {
    test('the high-s twin of a valid signature, which recovers the claimer too: SignatureSHigh', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      const signature = await claimerSignature(swap, user.address);
      const twin = highSTwin(signature);
      const digest = hashTypedData({
        domain: { name: 'lnswap', version: '3', ...domain },
        types: COOPERATIVE_REFUND_TYPES,
        primaryType: 'CooperativeRefund',
        message: { orderUUID: orderIdToBytes16(swap.orderId), funder: user.address },
      });
      assert.equal(await recoverAddress({ hash: digest, signature: twin }), provider.address);
      await assertRefusedAndUntouched(swap, user.address, twin, 'SignatureSHigh');
      await refundCooperative(swap, user.address, signature);
    });

    test('any length but 65 bytes, the compact 64-byte form included: SignatureLengthInvalid', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      const signature = await claimerSignature(swap, user.address);
      const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
      for (const malformed of ['0x', compact, `${signature}00`, signature.slice(0, 128)] as Hex[]) {
        await assertRefusedAndUntouched(swap, user.address, malformed, 'SignatureLengthInvalid');
      }
    });

    test('v other than 27 or 28: SignatureVInvalid', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      const signature = await claimerSignature(swap, user.address);
      for (const v of ['00', '01', '1d', 'ff']) {
        await assertRefusedAndUntouched(
          swap,
          user.address,
          `${signature.slice(0, 130)}${v}` as Hex,
          'SignatureVInvalid',
        );
      }
    });

    test('a signature ecrecover recovers no address from (r = 0, s = 0): SignatureUnrecoverable', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      const signature = await claimerSignature(swap, user.address);
      const zeroR = `0x${'00'.repeat(32)}${signature.slice(66)}` as Hex;
      const zeroS = `${signature.slice(0, 66)}${'00'.repeat(32)}${signature.slice(130)}` as Hex;
      await assertRefusedAndUntouched(swap, user.address, zeroR, 'SignatureUnrecoverable');
      await assertRefusedAndUntouched(swap, user.address, zeroS, 'SignatureUnrecoverable');
    });
  });

  describe('only an open slot: SlotNotOpen', () => {
    test('a slot never funded, a claimed slot, a slot refunded by timelock or by the owner', async () => {
      const never = newSwap();
      await assertReverts(
        refundCooperative(never, user.address, await claimerSignature(never, user.address)),
        'SlotNotOpen',
      );
      const claimed = newSwap();
      await fund(user, claimed, 1_000n);
      await send(stranger, encodeClaimCalldata(claimed.orderId, user.address, claimed.preimage));
      await assertReverts(
        refundCooperative(claimed, user.address, await claimerSignature(claimed, user.address)),
        'SlotNotOpen',
      );
      const timelocked = newSwap();
      await fund(user, timelocked, 1_000n);
      await node.mine(Number(REFUND_DELAY) + 1);
      await send(user, encodeRefundCalldata(timelocked.orderId));
      await assertReverts(
        refundCooperative(timelocked, user.address, await claimerSignature(timelocked, user.address)),
        'SlotNotOpen',
      );
      const byOwner = newSwap();
      await fund(user, byOwner, 1_000n);
      await send(owner, encodeAdminRefundCalldata(byOwner.orderId, user.address));
      await assertReverts(
        refundCooperative(byOwner, user.address, await claimerSignature(byOwner, user.address)),
        'SlotNotOpen',
      );
    });

    test('a second cooperative refund of the same slot, and a claim or refund after it', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      await fund(stranger, swap, 1_000n);
      const signature = await claimerSignature(swap, user.address);
      await refundCooperative(swap, user.address, signature);
      const contractBefore = await balance(contract);
      await assertReverts(refundCooperative(swap, user.address, signature), 'SlotNotOpen');
      await assertReverts(
        send(stranger, encodeClaimCalldata(swap.orderId, user.address, swap.preimage)),
        'SlotNotOpen',
      );
      await assertReverts(send(owner, encodeAdminRefundCalldata(swap.orderId, user.address)), 'SlotNotOpen');
      await assertReverts(fund(user, swap, 1n), 'SlotNotOpen');
      assert.equal(await balance(contract), contractBefore);
      assert.equal((await slot(swap, stranger.address)).state, STATE.Funded);
    });
  });

  test('a funder re-entering the contract when refunded cooperatively takes exactly its slot', async () => {
    const reenteringAbi = hostileContract('ReenteringAccount').abi;
    const swap = newSwap();
    const funder = await deployHostileContract(node, 'ReenteringAccount', [contract], { value: parseEther('1') });
    const value = parseEther('0.3');
    const act = await node.wallet(owner).writeContract({
      address: funder,
      abi: reenteringAbi,
      functionName: 'act',
      args: [encodeFundCalldata(swap.orderId, swap.paymentHash, provider.address)],
      value,
    });
    await node.publicClient.waitForTransactionReceipt({ hash: act });
    await fund(user, swap, parseEther('0.5'));
    const signature = await claimerSignature(swap, funder);
    const reentries = [
      refundCooperativeCalldata(swap.orderId, funder, signature),
      refundCooperativeCalldata(swap.orderId, user.address, await claimerSignature(swap, user.address)),
      encodeClaimCalldata(swap.orderId, user.address, swap.preimage),
      encodeRefundCalldata(swap.orderId),
    ];
    const arm = await node.wallet(owner).writeContract({
      address: funder,
      abi: reenteringAbi,
      functionName: 'arm',
      args: [reentries, reentries.map(() => 0n)],
    });
    await node.publicClient.waitForTransactionReceipt({ hash: arm });
    const [funderBefore, contractBefore] = await Promise.all([balance(funder), balance(contract)]);
    await refundCooperative(swap, funder, signature);
    assert.equal(await balance(funder), funderBefore + value);
    assert.equal(await balance(contract), contractBefore - value);
    const read = (functionName: string, args: readonly unknown[] = []) =>
      node.publicClient.readContract({ address: funder, abi: reenteringAbi, functionName, args });
    assert.equal(await read('accepted'), 0n);
    assert.equal(await read('refusalCount'), 4n);
    for (let index = 0n; index < 4n; index += 1n) {
      assert.equal(await read('refusals', [index]), toFunctionSelector('Reentrancy()'));
    }
    assert.equal((await slot(swap, user.address)).state, STATE.Funded);
  });
});
