import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  getAddress,
  parseEther,
  parseEventLogs,
  toFunctionSelector,
  type Abi,
  type Account,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import {
  SWAP_CONTRACT_ARTIFACT_ABI as ABI,
  SWAP_CONTRACT_BYTECODE,
} from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { SWAP_CONTRACT_V3_BYTECODE } from '../../../src/chains/ethereum/swap-contract-v3-artifact.js';
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
import { deployHostileContract, hostileContract, type HostileContractName } from '../../support/hostile-contracts.js';
import { revertAsserter } from './contract-reverts.js';
import { deploySwapContractV3 } from './swap-contract-v3.js';

const REFUND_DELAY = 10n;
const STATE = { Empty: 0, Funded: 1, Claimed: 2, Refunded: 3 } as const;
const REENTRANCY = toFunctionSelector('Reentrancy()');
const ZERO_HASH = '00'.repeat(32);

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

const assertReverts = revertAsserter(ABI);

/**
 * The third version keeps the second's functions, events and errors: the second's whole suite runs on both, through
 * the second's ABI (the third's adds to it).
 */
const VERSIONS = [
  {
    name: 'SwapContract v2',
    bytecode: SWAP_CONTRACT_BYTECODE,
    deploy: (node: AnvilNode, owner: Account) => node.deploySwapContract(REFUND_DELAY, owner),
  },
  {
    name: 'SwapContractV3',
    bytecode: SWAP_CONTRACT_V3_BYTECODE,
    deploy: (node: AnvilNode, owner: Account) => deploySwapContractV3(node, REFUND_DELAY, owner),
  },
] as const;

// One Anvil for both versions: each suite deploys its own contract, and every test reads heights and balances
// relative to its own transactions.
let node: AnvilNode;
if (!anvilSkipReason) {
  before(async () => {
    node = await startAnvil();
  });
  after(() => node?.stop());
}

for (const version of VERSIONS) {
  describe(`${version.name} on Anvil, as the second version`, { skip: anvilSkipReason }, () =>
    secondVersionSuite(version),
  );
}

function secondVersionSuite(version: (typeof VERSIONS)[number]): void {
  let contract: Address;
  let owner: Account;
  let user: Account;
  let provider: Account;
  let stranger: Account;
  let attacker: Account;

  before(async () => {
    [owner, user, provider, stranger, attacker] = node.accounts as readonly Account[] as [
      Account,
      Account,
      Account,
      Account,
      Account,
    ];
    contract = await version.deploy(node, owner);
  });

  async function send(from: Account, data: Hex, value = 0n, to: Address = contract): Promise<TransactionReceipt> {
    const hash = await node.wallet(from).sendTransaction({ to, data, value });
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  interface Terms {
    paymentHash?: string;
    claimer?: Address;
  }

  const fund = (from: Account, swap: Swap, value: bigint, terms: Terms = {}) =>
    send(
      from,
      encodeFundCalldata(swap.orderId, terms.paymentHash ?? swap.paymentHash, terms.claimer ?? provider.address),
      value,
    );
  const fundToken = (from: Account, swap: Swap, token: Address, amount: bigint, terms: Terms = {}) =>
    send(
      from,
      encodeFundTokenCalldata(
        swap.orderId,
        terms.paymentHash ?? swap.paymentHash,
        terms.claimer ?? provider.address,
        token,
        amount,
      ),
    );
  const claim = (from: Account, swap: Swap, funder: Address, preimage = swap.preimage) =>
    send(from, encodeClaimCalldata(swap.orderId, funder, preimage));
  const refund = (from: Account, swap: Swap) => send(from, encodeRefundCalldata(swap.orderId));
  const adminRefund = (from: Account, swap: Swap, funder: Address) =>
    send(from, encodeAdminRefundCalldata(swap.orderId, funder));

  async function slot(swap: Swap, funder: Address) {
    const [paymentHash, claimer, token, amount, refundHeight, state] = await node.publicClient.readContract({
      address: contract,
      abi: ABI,
      functionName: 'slots',
      args: [orderIdToBytes16(swap.orderId), funder],
    });
    return { paymentHash, claimer, token, amount, refundHeight, state };
  }

  const balance = (address: Address) => node.publicClient.getBalance({ address });
  const contractBalance = () => balance(contract);

  /** Mines until the next transaction lands in block `height`. */
  async function mineUntilNextBlockIs(height: bigint): Promise<void> {
    const current = await node.blockNumber();
    assert.ok(height > current, `block ${height} is already mined`);
    if (height - current > 1n) await node.mine(Number(height - current - 1n));
  }

  /** Runs `attempt` on a copy of the chain and throws the copy away, so one slot can be tried both ways. */
  async function onForkedChain(attempt: () => Promise<void>): Promise<void> {
    const snapshot = await node.snapshot();
    try {
      await attempt();
    } finally {
      await node.revert(snapshot);
    }
  }

  describe('deployment', () => {
    test('records its owner and refund delay', async () => {
      assert.equal(
        await node.publicClient.readContract({ address: contract, abi: ABI, functionName: 'owner' }),
        owner.address,
      );
      assert.equal(
        await node.publicClient.readContract({ address: contract, abi: ABI, functionName: 'refundDelay' }),
        REFUND_DELAY,
      );
    });

    test('a refund delay of zero is refused: RefundDelayZero', async () => {
      await assertReverts(
        node.wallet(owner).deployContract({ abi: ABI, bytecode: version.bytecode, args: [0n] }),
        'RefundDelayZero',
      );
    });
  });

  describe('ether slots', () => {
    test("a funding opens the funder's slot, fixing payment hash, claimer and refund height", async () => {
      const swap = newSwap();
      const value = parseEther('0.5');
      const before = await contractBalance();
      const receipt = await fund(user, swap, value);
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderFunded' });
      assert.deepEqual(event?.args, {
        orderUUID: orderIdToBytes16(swap.orderId),
        funder: user.address,
        paymentHash: `0x${swap.paymentHash}`,
        claimer: provider.address,
        token: ZERO_ADDRESS,
        amount: value,
        slotTotal: value,
        refundHeight: receipt.blockNumber + REFUND_DELAY,
      });
      assert.deepEqual(await slot(swap, user.address), {
        paymentHash: `0x${swap.paymentHash}`,
        claimer: provider.address,
        token: ZERO_ADDRESS,
        amount: value,
        refundHeight: receipt.blockNumber + REFUND_DELAY,
        state: STATE.Funded,
      });
      assert.equal(await contractBalance(), before + value);
    });

    test('a first funding is refused without value, payment hash or claimer: ZeroValue, ZeroPaymentHash, ZeroClaimer', async () => {
      const swap = newSwap();
      await assertReverts(fund(user, swap, 0n), 'ZeroValue');
      await assertReverts(fund(user, swap, 1n, { paymentHash: ZERO_HASH }), 'ZeroPaymentHash');
      await assertReverts(fund(user, swap, 1n, { claimer: ZERO_ADDRESS }), 'ZeroClaimer');
      assert.equal((await slot(swap, user.address)).state, STATE.Empty);
    });

    test('a top-up with the same terms before the refund height adds to the slot and keeps its refund height', async () => {
      const swap = newSwap();
      const first = await fund(user, swap, parseEther('0.2'));
      const refundHeight = first.blockNumber + REFUND_DELAY;
      await mineUntilNextBlockIs(refundHeight - 1n);
      const second = await fund(user, swap, parseEther('0.3'));
      const [event] = parseEventLogs({ abi: ABI, logs: second.logs, eventName: 'OrderFunded' });
      assert.equal(event?.args.amount, parseEther('0.3'));
      assert.equal(event?.args.slotTotal, parseEther('0.5'));
      assert.equal(event?.args.refundHeight, refundHeight);
      const stored = await slot(swap, user.address);
      assert.equal(stored.amount, parseEther('0.5'));
      assert.equal(stored.refundHeight, refundHeight);
    });

    test('a top-up with other terms, in a token, or from the refund height on is refused', async () => {
      const swap = newSwap();
      const first = await fund(user, swap, parseEther('0.1'));
      const refundHeight = first.blockNumber + REFUND_DELAY;
      await assertReverts(fund(user, swap, 1n, { paymentHash: newSwap().paymentHash }), 'SlotTermsMismatch');
      await assertReverts(fund(user, swap, 1n, { claimer: stranger.address }), 'SlotTermsMismatch');
      const token = await node.deployDemoToken({});
      await node.mintDemoToken(token, user.address, 1_000n);
      await node.approveToken(token, user, contract, 1_000n);
      await assertReverts(fundToken(user, swap, token, 1_000n), 'SlotTermsMismatch');
      await mineUntilNextBlockIs(refundHeight);
      await assertReverts(fund(user, swap, 1n), 'FundingWindowClosed');
      assert.equal((await slot(swap, user.address)).amount, parseEther('0.1'));
      assert.equal(await node.tokenBalance(token, user.address), 1_000n);
    });

    test('a settled slot takes no more money: SlotNotOpen', async () => {
      const claimed = newSwap();
      await fund(user, claimed, 1_000n);
      await claim(stranger, claimed, user.address);
      await assertReverts(fund(user, claimed, 1_000n), 'SlotNotOpen');
      const refunded = newSwap();
      await fund(user, refunded, 1_000n);
      await adminRefund(owner, refunded, user.address);
      await assertReverts(fund(user, refunded, 1_000n), 'SlotNotOpen');
    });
  });

  describe('claim', () => {
    test("a third party's claim pays the slot's claimer exactly the slot and the sender nothing", async () => {
      const swap = newSwap();
      const value = parseEther('0.75');
      await fund(user, swap, value);
      const [providerBefore, strangerBefore, contractBefore] = await Promise.all([
        balance(provider.address),
        balance(stranger.address),
        contractBalance(),
      ]);
      const receipt = await claim(stranger, swap, user.address);
      assert.equal(await balance(provider.address), providerBefore + value);
      assert.equal(await balance(stranger.address), strangerBefore - gasCost(receipt));
      assert.equal(await contractBalance(), contractBefore - value);
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderClaimed' });
      assert.deepEqual(event?.args, {
        orderUUID: orderIdToBytes16(swap.orderId),
        funder: user.address,
        claimer: provider.address,
        preimage: `0x${swap.preimage}`,
        token: ZERO_ADDRESS,
        amount: value,
      });
      assert.equal((await slot(swap, user.address)).state, STATE.Claimed);
      await assertReverts(claim(provider, swap, user.address), 'SlotNotOpen');
      await assertReverts(adminRefund(owner, swap, user.address), 'SlotNotOpen');
    });

    test('a wrong preimage, an empty slot or another funder is refused: WrongPreimage, SlotNotOpen', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      await assertReverts(claim(provider, swap, user.address, newSwap().preimage), 'WrongPreimage');
      await assertReverts(claim(provider, swap, user.address, swap.paymentHash), 'WrongPreimage');
      await assertReverts(claim(provider, swap, stranger.address), 'SlotNotOpen');
      await assertReverts(claim(provider, newSwap(), user.address), 'SlotNotOpen');
      assert.equal((await slot(swap, user.address)).state, STATE.Funded);
    });

    test('a claimer that cannot take ether blocks only its own claim: TransferFailed, then the funder refunds', async () => {
      const swap = newSwap();
      const rejecting = await deployHostileContract(node, 'FalseReturningToken');
      const first = await fund(user, swap, 1_000n, { claimer: rejecting });
      await assertReverts(claim(stranger, swap, user.address), 'TransferFailed');
      await mineUntilNextBlockIs(first.blockNumber + REFUND_DELAY + 1n);
      const before = await balance(user.address);
      const receipt = await refund(user, swap);
      assert.equal(await balance(user.address), before + 1_000n - gasCost(receipt));
    });
  });

  describe('refund windows', () => {
    test('claim up to and including the refund height, refund only after it: the windows never overlap', async () => {
      const swap = newSwap();
      const value = parseEther('0.3');
      const first = await fund(user, swap, value);
      const refundHeight = first.blockNumber + REFUND_DELAY;
      await mineUntilNextBlockIs(refundHeight);
      await onForkedChain(async () => {
        await assertReverts(refund(user, swap), 'RefundHeightNotReached');
        const providerBefore = await balance(provider.address);
        const receipt = await claim(stranger, swap, user.address);
        assert.equal(receipt.blockNumber, refundHeight);
        assert.equal(await balance(provider.address), providerBefore + value);
      });
      await node.mine(1);
      await assertReverts(claim(stranger, swap, user.address), 'RefundHeightPassed');
      const before = await balance(user.address);
      const receipt = await refund(user, swap);
      assert.equal(receipt.blockNumber, refundHeight + 1n);
      assert.equal(await balance(user.address), before + value - gasCost(receipt));
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
      assert.deepEqual(event?.args, {
        orderUUID: orderIdToBytes16(swap.orderId),
        funder: user.address,
        token: ZERO_ADDRESS,
        amount: value,
        byAdmin: false,
      });
      assert.equal((await slot(swap, user.address)).state, STATE.Refunded);
      await assertReverts(refund(user, swap), 'SlotNotOpen');
      await assertReverts(claim(stranger, swap, user.address), 'SlotNotOpen');
    });

    test("refund only ever pays the caller's own slot: anyone else's refund of the order is refused", async () => {
      const swap = newSwap();
      const first = await fund(user, swap, parseEther('1'));
      await mineUntilNextBlockIs(first.blockNumber + REFUND_DELAY + 1n);
      const contractBefore = await contractBalance();
      await assertReverts(refund(stranger, swap), 'SlotNotOpen');
      await assertReverts(refund(owner, swap), 'SlotNotOpen');
      await assertReverts(refund(provider, swap), 'SlotNotOpen');
      assert.equal(await contractBalance(), contractBefore);
      assert.equal((await slot(swap, user.address)).amount, parseEther('1'));
    });
  });

  describe('adminRefund', () => {
    test('only the owner may send it, and not even the funder: OnlyOwner', async () => {
      const swap = newSwap();
      await fund(user, swap, 1_000n);
      await assertReverts(adminRefund(user, swap, user.address), 'OnlyOwner');
      await assertReverts(adminRefund(stranger, swap, user.address), 'OnlyOwner');
      await assertReverts(adminRefund(owner, swap, stranger.address), 'SlotNotOpen');
      assert.equal((await slot(swap, user.address)).state, STATE.Funded);
    });

    test("before the refund height it returns one funder's slot to that funder and leaves the other slots alone", async () => {
      const swap = newSwap();
      const value = parseEther('0.4');
      await fund(user, swap, value);
      await fund(stranger, swap, 7n);
      const [userBefore, ownerBefore] = await Promise.all([balance(user.address), balance(owner.address)]);
      const receipt = await adminRefund(owner, swap, user.address);
      assert.equal(await balance(user.address), userBefore + value);
      assert.equal(await balance(owner.address), ownerBefore - gasCost(receipt));
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
      assert.deepEqual(event?.args, {
        orderUUID: orderIdToBytes16(swap.orderId),
        funder: user.address,
        token: ZERO_ADDRESS,
        amount: value,
        byAdmin: true,
      });
      assert.equal((await slot(swap, user.address)).state, STATE.Refunded);
      assert.deepEqual(
        { state: (await slot(swap, stranger.address)).state, amount: (await slot(swap, stranger.address)).amount },
        { state: STATE.Funded, amount: 7n },
      );
      await assertReverts(claim(provider, swap, user.address), 'SlotNotOpen');
      await claim(provider, swap, stranger.address);
    });

    test('after the refund height it still pays the funder, and the funder can then no longer refund', async () => {
      const swap = newSwap();
      const first = await fund(user, swap, 12_345n);
      await mineUntilNextBlockIs(first.blockNumber + REFUND_DELAY + 2n);
      const userBefore = await balance(user.address);
      await adminRefund(owner, swap, user.address);
      assert.equal(await balance(user.address), userBefore + 12_345n);
      await assertReverts(refund(user, swap), 'SlotNotOpen');
    });
  });

  describe("other parties' fundings of the same order", () => {
    test('a 1-wei first funder gets back only its 1 wei and the user its whole amount', async () => {
      const swap = newSwap();
      const value = parseEther('2');
      const attack = await fund(attacker, swap, 1n, { claimer: attacker.address });
      await fund(user, swap, value);
      await mineUntilNextBlockIs(attack.blockNumber + REFUND_DELAY + 3n);
      const attackerBefore = await balance(attacker.address);
      const attackerRefund = await refund(attacker, swap);
      assert.equal(await balance(attacker.address), attackerBefore + 1n - gasCost(attackerRefund));
      await assertReverts(refund(attacker, swap), 'SlotNotOpen');
      const userBefore = await balance(user.address);
      const userRefund = await refund(user, swap);
      assert.equal(await balance(user.address), userBefore + value - gasCost(userRefund));
    });

    test("a 1-wei first funder cannot take a claim: the provider claims the user's slot in full", async () => {
      const swap = newSwap();
      const value = parseEther('1.5');
      await fund(attacker, swap, 1n, { claimer: attacker.address });
      await fund(user, swap, value);
      const providerBefore = await balance(provider.address);
      await claim(attacker, swap, user.address);
      assert.equal(await balance(provider.address), providerBefore + value);
      assert.equal((await slot(swap, attacker.address)).amount, 1n);
    });

    test("a wrong-hash funding before the user neither blocks nor changes the user's slot", async () => {
      const swap = newSwap();
      const wrong = newSwap();
      const value = parseEther('0.6');
      await fund(attacker, swap, 5n, { paymentHash: wrong.paymentHash, claimer: attacker.address });
      await fund(user, swap, value);
      assert.equal((await slot(swap, user.address)).paymentHash, `0x${swap.paymentHash}`);
      await assertReverts(claim(attacker, swap, user.address, wrong.preimage), 'WrongPreimage');
      const providerBefore = await balance(provider.address);
      await claim(stranger, swap, user.address);
      assert.equal(await balance(provider.address), providerBefore + value);
    });

    test("a wrong-hash funding after the user neither touches the user's slot nor its claim", async () => {
      const swap = newSwap();
      const wrong = newSwap();
      const value = parseEther('0.6');
      await fund(user, swap, value);
      const userSlot = await slot(swap, user.address);
      await fund(attacker, swap, 5n, { paymentHash: wrong.paymentHash, claimer: attacker.address });
      await fund(attacker, swap, 5n, { paymentHash: wrong.paymentHash, claimer: attacker.address });
      assert.deepEqual(await slot(swap, user.address), userSlot);
      await fund(user, swap, 1n);
      assert.equal((await slot(swap, user.address)).amount, value + 1n);
      const providerBefore = await balance(provider.address);
      await claim(stranger, swap, user.address);
      assert.equal(await balance(provider.address), providerBefore + value + 1n);
      assert.equal((await slot(swap, attacker.address)).amount, 10n);
    });
  });

  describe('re-entering claimers and funders', () => {
    const reenteringAbi = () => hostileContract('ReenteringAccount').abi;

    async function arm(reenterer: Address, calls: readonly Hex[], values?: readonly bigint[]): Promise<void> {
      const hash = await node.wallet(owner).writeContract({
        address: reenterer,
        abi: hostileContract('ReenteringAccount').abi,
        functionName: 'arm',
        args: [calls, values ?? calls.map(() => 0n)],
      });
      await node.publicClient.waitForTransactionReceipt({ hash });
    }

    /** What the re-entering contract saw: how many calls got through, and each refusal's selector. */
    async function outcome(reenterer: Address, abi: Abi = reenteringAbi()) {
      const read = (functionName: string, args: readonly unknown[] = []) =>
        node.publicClient.readContract({ address: reenterer, abi, functionName, args });
      const accepted = (await read('accepted')) as bigint;
      const count = (await read('refusalCount')) as bigint;
      const refusals: Hex[] = [];
      for (let index = 0n; index < count; index += 1n) refusals.push((await read('refusals', [index])) as Hex);
      return { accepted, refusals };
    }

    const act = (reenterer: Address, data: Hex, value = 0n) =>
      node
        .wallet(owner)
        .writeContract({ address: reenterer, abi: reenteringAbi(), functionName: 'act', args: [data], value })
        .then((hash) => node.publicClient.waitForTransactionReceipt({ hash }));

    test('a claimer re-entering claim, refund and fund when paid takes exactly the slot', async () => {
      const swap = newSwap();
      const value = parseEther('0.9');
      const claimer = await deployHostileContract(node, 'ReenteringAccount', [contract], { value: parseEther('1') });
      await fund(user, swap, value, { claimer });
      await fund(stranger, swap, parseEther('0.2'), { claimer });
      await arm(
        claimer,
        [
          encodeClaimCalldata(swap.orderId, user.address, swap.preimage),
          encodeClaimCalldata(swap.orderId, stranger.address, swap.preimage),
          encodeRefundCalldata(swap.orderId),
          encodeFundCalldata(swap.orderId, swap.paymentHash, claimer),
        ],
        [0n, 0n, 0n, 1n],
      );
      const [claimerBefore, contractBefore] = await Promise.all([balance(claimer), contractBalance()]);
      await claim(provider, swap, user.address);
      assert.equal(await balance(claimer), claimerBefore + value);
      assert.equal(await contractBalance(), contractBefore - value);
      assert.deepEqual(await outcome(claimer), {
        accepted: 0n,
        refusals: [REENTRANCY, REENTRANCY, REENTRANCY, REENTRANCY],
      });
      assert.equal((await slot(swap, stranger.address)).state, STATE.Funded);
      assert.equal((await slot(swap, claimer)).state, STATE.Empty);
    });

    test('a funder re-entering refund and claim when refunded, by timelock or by the owner, takes exactly its slot', async () => {
      const swap = newSwap();
      const funder = await deployHostileContract(node, 'ReenteringAccount', [contract], { value: parseEther('1') });
      const value = parseEther('0.25');
      const funding = await act(funder, encodeFundCalldata(swap.orderId, swap.paymentHash, provider.address), value);
      await fund(user, swap, parseEther('0.5'));
      const reentries = [
        encodeRefundCalldata(swap.orderId),
        encodeClaimCalldata(swap.orderId, user.address, swap.preimage),
        encodeAdminRefundCalldata(swap.orderId, user.address),
      ];
      await onForkedChain(async () => {
        await arm(funder, reentries);
        const [funderBefore, contractBefore] = await Promise.all([balance(funder), contractBalance()]);
        await adminRefund(owner, swap, funder);
        assert.equal(await balance(funder), funderBefore + value);
        assert.equal(await contractBalance(), contractBefore - value);
        assert.deepEqual(await outcome(funder), { accepted: 0n, refusals: [REENTRANCY, REENTRANCY, REENTRANCY] });
      });
      await mineUntilNextBlockIs(funding.blockNumber + REFUND_DELAY + 1n);
      await arm(funder, reentries);
      const [funderBefore, contractBefore] = await Promise.all([balance(funder), contractBalance()]);
      await act(funder, encodeRefundCalldata(swap.orderId));
      assert.equal(await balance(funder), funderBefore + value);
      assert.equal(await contractBalance(), contractBefore - value);
      assert.deepEqual(await outcome(funder), { accepted: 0n, refusals: [REENTRANCY, REENTRANCY, REENTRANCY] });
      assert.equal((await slot(swap, user.address)).state, STATE.Funded);
    });
  });

  describe('token slots', () => {
    let demoToken: Address;

    before(async () => {
      demoToken = getAddress(await node.deployDemoToken({ decimals: 6 }));
    });

    async function hostileToken(name: HostileContractName, args: readonly unknown[] = []): Promise<Address> {
      return deployHostileContract(node, name, args);
    }

    async function mintTo(token: Address, to: Account, amount: bigint, name: HostileContractName): Promise<void> {
      const hash = await node.wallet(to).writeContract({
        address: token,
        abi: hostileContract(name).abi,
        functionName: 'mint',
        args: [to.address, amount],
      });
      await node.publicClient.waitForTransactionReceipt({ hash });
    }

    test('a standard ERC-20: fundToken after approve, a third party claim pays the claimer the tokens', async () => {
      const swap = newSwap();
      await node.mintDemoToken(demoToken, user.address, 5_000_000n);
      await node.approveToken(demoToken, user, contract, 3_000_000n);
      const userBefore = await node.tokenBalance(demoToken, user.address);
      const receipt = await fundToken(user, swap, demoToken, 3_000_000n);
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderFunded' });
      assert.equal(event?.args.token, demoToken);
      assert.equal(event?.args.amount, 3_000_000n);
      assert.equal(event?.args.slotTotal, 3_000_000n);
      assert.equal(await node.tokenBalance(demoToken, contract), 3_000_000n);
      assert.equal(await node.tokenBalance(demoToken, user.address), userBefore - 3_000_000n);
      const claimed = await claim(stranger, swap, user.address);
      const [claimEvent] = parseEventLogs({ abi: ABI, logs: claimed.logs, eventName: 'OrderClaimed' });
      assert.equal(claimEvent?.args.token, demoToken);
      assert.equal(await node.tokenBalance(demoToken, provider.address), 3_000_000n);
      assert.equal(await node.tokenBalance(demoToken, contract), 0n);
    });

    test('a token slot is refunded in the token, by timelock or by the owner, to its funder', async () => {
      const swap = newSwap();
      await node.mintDemoToken(demoToken, stranger.address, 900n);
      await node.approveToken(demoToken, stranger, contract, 900n);
      const first = await fundToken(stranger, swap, demoToken, 400n);
      await fundToken(stranger, swap, demoToken, 500n);
      await assertReverts(fund(stranger, swap, 1n), 'SlotTermsMismatch');
      await onForkedChain(async () => {
        await adminRefund(owner, swap, stranger.address);
        assert.equal(await node.tokenBalance(demoToken, stranger.address), 900n);
        assert.equal(await node.tokenBalance(demoToken, owner.address), 0n);
      });
      await mineUntilNextBlockIs(first.blockNumber + REFUND_DELAY + 1n);
      const receipt = await refund(stranger, swap);
      const [event] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'OrderRefunded' });
      assert.equal(event?.args.token, demoToken);
      assert.equal(event?.args.amount, 900n);
      assert.equal(await node.tokenBalance(demoToken, stranger.address), 900n);
    });

    test("fundToken without token, amount or allowance, or in another token than the slot's, is refused", async () => {
      const swap = newSwap();
      await node.mintDemoToken(demoToken, user.address, 100n);
      await assertReverts(fundToken(user, swap, ZERO_ADDRESS, 100n), 'ZeroToken');
      await assertReverts(fundToken(user, swap, demoToken, 0n), 'ZeroValue');
      await node.approveToken(demoToken, user, contract, 0n);
      await assertReverts(fundToken(user, swap, demoToken, 100n), 'TokenTransferFailed');
      await node.approveToken(demoToken, user, contract, 100n);
      await fundToken(user, swap, demoToken, 60n);
      const other = await node.deployDemoToken({});
      await node.mintDemoToken(other, user.address, 100n);
      await node.approveToken(other, user, contract, 100n);
      await assertReverts(fundToken(user, swap, other, 10n), 'SlotTermsMismatch');
      assert.equal(await node.tokenBalance(other, user.address), 100n);
    });

    test('a token returning nothing (USDT-style) funds, and is claimed, like a standard one', async () => {
      const swap = newSwap();
      const token = await hostileToken('NoReturnToken');
      await mintTo(token, user, 1_000n, 'NoReturnToken');
      await node.approveToken(token, user, contract, 1_000n);
      await fundToken(user, swap, token, 1_000n);
      assert.equal(await node.tokenBalance(token, contract), 1_000n);
      await claim(stranger, swap, user.address);
      assert.equal(await node.tokenBalance(token, provider.address), 1_000n);
      assert.equal(await node.tokenBalance(token, contract), 0n);
    });

    test('a token returning false is refused: TokenTransferFailed', async () => {
      const swap = newSwap();
      const token = await hostileToken('FalseReturningToken');
      await mintTo(token, user, 1_000n, 'FalseReturningToken');
      await node.approveToken(token, user, contract, 1_000n);
      await assertReverts(fundToken(user, swap, token, 1_000n), 'TokenTransferFailed');
      assert.equal((await slot(swap, user.address)).state, STATE.Empty);
    });

    test('a fee-on-transfer token is refused: TokenAmountMismatch, nothing moves', async () => {
      const swap = newSwap();
      const token = await hostileToken('FeeOnTransferToken');
      await mintTo(token, user, 1_000n, 'FeeOnTransferToken');
      await node.approveToken(token, user, contract, 1_000n);
      await assertReverts(fundToken(user, swap, token, 1_000n), 'TokenAmountMismatch');
      assert.equal(await node.tokenBalance(token, user.address), 1_000n);
      assert.equal(await node.tokenBalance(token, contract), 0n);
      assert.equal((await slot(swap, user.address)).state, STATE.Empty);
    });

    test('a token address without code is refused: TokenTransferFailed', async () => {
      await assertReverts(fundToken(user, newSwap(), stranger.address, 1_000n), 'TokenTransferFailed');
    });

    test('a token re-entering fundToken, claim and refund from transferFrom and transfer moves only the slot', async () => {
      const swap = newSwap();
      const token = await hostileToken('ReenteringToken', [contract]);
      const tokenAbi = hostileContract('ReenteringToken').abi;
      await mintTo(token, user, 1_000n, 'ReenteringToken');
      await node.approveToken(token, user, contract, 1_000n);
      const armToken = async (calls: Hex[]) => {
        const hash = await node.wallet(owner).writeContract({
          address: token,
          abi: tokenAbi,
          functionName: 'arm',
          args: [calls, calls.map(() => 0n)],
        });
        await node.publicClient.waitForTransactionReceipt({ hash });
      };
      await armToken([
        encodeFundTokenCalldata(swap.orderId, swap.paymentHash, provider.address, token, 1_000n),
        encodeClaimCalldata(swap.orderId, user.address, swap.preimage),
        encodeRefundCalldata(swap.orderId),
      ]);
      await fundToken(user, swap, token, 600n);
      assert.equal((await slot(swap, user.address)).amount, 600n);
      assert.equal(await node.tokenBalance(token, contract), 600n);
      await armToken([
        encodeClaimCalldata(swap.orderId, user.address, swap.preimage),
        encodeRefundCalldata(swap.orderId),
        encodeFundTokenCalldata(swap.orderId, swap.paymentHash, provider.address, token, 1n),
      ]);
      await claim(stranger, swap, user.address);
      assert.equal(await node.tokenBalance(token, provider.address), 600n);
      assert.equal(await node.tokenBalance(token, contract), 0n);
      assert.equal(await node.tokenBalance(token, user.address), 400n);
      const read = (functionName: string, args: readonly unknown[] = []) =>
        node.publicClient.readContract({ address: token, abi: tokenAbi, functionName, args });
      assert.equal(await read('accepted'), 0n);
      assert.equal(await read('refusalCount'), 6n);
      for (let index = 0n; index < 6n; index += 1n) assert.equal(await read('refusals', [index]), REENTRANCY);
    });
  });
}
