/**
 * A funder's slots in lnswap's swap contracts, read from the chain alone through the wallet's own node: what a
 * wallet needs to take its money back when the service that quoted the orders is gone. The contracts' `OrderFunded`
 * logs say where to look; each slot is then read from the contract itself, which alone says what it holds.
 */
import { decodeFunctionResult, encodeFunctionData, pad, toEventSelector, type Address, type Hex } from 'viem';
import { isEthereumAddress, SWAP_CONTRACT_SLOTS_ABI, ZERO_ADDRESS } from '../domain/ethereum.js';
import { isZeroXHex } from '../domain/hex.js';
import { normalizeOrderId, orderIdToBytes16 } from '../domain/order-ids.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

const ORDER_FUNDED_TOPIC = toEventSelector(
  'OrderFunded(bytes16,address,bytes32,address,address,uint256,uint256,uint256)',
);

/** The contract's `State` enum past `Empty`, in its order. */
const SLOT_STATES = [undefined, 'funded', 'claimed', 'refunded'] as const;

/** The six words of a `slots` answer. */
const SLOT_ANSWER_HEX_DIGITS = 6 * 64;

const DEFAULT_BLOCKS_PER_REQUEST = 10_000n;

/** What the listing asks of a node: JSON-RPC requests. A viem `PublicClient` is one, and so is an EIP-1193 provider. */
export interface SlotReader {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

export interface RefundableSlotsOptions {
  /** A viem `PublicClient` on the wallet's own node; the service's node would be the service's word again. */
  client: SlotReader;
  /** The account that funded the slots, the one that signs their refunds. */
  funder: string;
  /** The swap contracts the wallet trusts (checked with `verifySwapContract`): a log of any other is ignored. */
  contracts: readonly string[];
  /** The first block to read logs from: at or before the wallet's first funding (or the contracts' deployment). */
  fromBlock: bigint;
  /** The largest block range of one `eth_getLogs` call, for nodes that bound it; 10,000 by default. */
  blocksPerRequest?: bigint;
}

/** One slot of the funder's, as the contract holds it at `asOfBlock`. */
export interface RefundableSlot {
  /** The order, as a dashed lowercase UUID. */
  readonly orderId: string;
  /** The swap contract holding the slot (lowercase), the refund's `to`. */
  readonly contract: Address;
  /** The slot's funder (lowercase): the refund must be sent from this account. */
  readonly funder: Address;
  /** What the slot holds, in base units (wei, or the token's): every funding of the slot together. */
  readonly amount: bigint;
  /** The ERC-20 token the slot holds (lowercase); undefined for ether. */
  readonly token: Address | undefined;
  /** The payment hash the slot is locked to, 64 hex. */
  readonly paymentHash: string;
  /** The only account a claim pays (lowercase). */
  readonly claimer: Address;
  /** The last block in which the slot may be claimed; a refund is accepted in any block after it. */
  readonly refundHeight: bigint;
  /** `funded` while the money is in the slot; `claimed` or `refunded` once it left. */
  readonly state: 'funded' | 'claimed' | 'refunded';
  /** The money is still in the slot. */
  readonly open: boolean;
  /** Open, and a refund sent now lands in a block past the refund height (the chain is at it or beyond). */
  readonly refundableNow: boolean;
  /** The block the slot was read at: the node's tip when asked. */
  readonly asOfBlock: bigint;
}

/**
 * The slots `funder` has funded in `contracts` since `fromBlock`, read through the wallet's own node with no word of
 * the service: each one the contracts' `OrderFunded` logs name, read back from the contract at the node's tip. A log
 * is only a pointer: one of another contract than `contracts` or of another funder (a node may ignore the query's
 * filters) is ignored, and one whose slot the contract does not hold (a forged or reorged log) lists nothing; a
 * slot's figures and state are the contract's. Sorted by refund height. Rejects with `UnsafeFundingDetails` for a
 * `funder` or contract that is not an address, and (`NodeAnswerUnreadable`) when the node answers what no node
 * answers or cannot be asked: then nothing is listed rather than a part.
 *
 * @example
 * import { createPublicClient, http } from 'viem';
 * import { ethereumRefundTransaction, refundableSlots } from '@lnswap/client';
 *
 * const client = createPublicClient({ transport: http('http://127.0.0.1:8545') });
 * const slots = await refundableSlots({ client, funder: account.address, contracts: [swapContract], fromBlock });
 * for (const slot of slots.filter((each) => each.refundableNow)) {
 *   await walletClient.sendTransaction(ethereumRefundTransaction(slot));
 * }
 */
export async function refundableSlots(options: RefundableSlotsOptions): Promise<RefundableSlot[]> {
  const { client } = options;
  const funder = checkedFunder(options.funder);
  const contracts = checkedContracts(options.contracts);
  const blocksPerRequest = options.blocksPerRequest ?? DEFAULT_BLOCKS_PER_REQUEST;
  if (typeof options.fromBlock !== 'bigint' || options.fromBlock < 0n)
    throw new RangeError('fromBlock must be a block number (a bigint, 0 or more)');
  if (typeof blocksPerRequest !== 'bigint' || blocksPerRequest < 1n)
    throw new RangeError('blocksPerRequest must be a bigint of 1 or more');
  const tip = quantity(await ask(client, { method: 'eth_blockNumber' }), 'the block number');
  const orders = new Map<string, { contract: Address; orderId: string }>();
  for (let from = options.fromBlock; from <= tip; from += blocksPerRequest) {
    const to = from + blocksPerRequest - 1n < tip ? from + blocksPerRequest - 1n : tip;
    const logs = await ask(client, {
      method: 'eth_getLogs',
      params: [
        {
          address: contracts,
          topics: [ORDER_FUNDED_TOPIC, null, pad(funder)],
          fromBlock: hexQuantity(from),
          toBlock: hexQuantity(to),
        },
      ],
    });
    for (const pointer of slotPointers(logs, contracts, funder))
      orders.set(`${pointer.contract} ${pointer.orderId}`, pointer);
  }
  const slots: RefundableSlot[] = [];
  for (const { contract, orderId } of orders.values()) {
    const slot = await readSlot(client, contract, orderId, funder, tip);
    if (slot !== undefined) slots.push(slot);
  }
  return slots.sort(
    (a, b) =>
      (a.refundHeight < b.refundHeight ? -1 : a.refundHeight > b.refundHeight ? 1 : 0) ||
      a.orderId.localeCompare(b.orderId) ||
      a.contract.localeCompare(b.contract),
  );
}

function checkedFunder(funder: string): Address {
  if (!isEthereumAddress(funder))
    throw new UnsafeFundingDetails('WrongFunder', 'the funder is not an Ethereum address');
  return funder.toLowerCase() as Address;
}

function checkedContracts(contracts: readonly string[]): Address[] {
  if (contracts.length === 0) throw new UnsafeFundingDetails('WrongContract', 'no swap contract to read the slots of');
  return [
    ...new Set(
      contracts.map((contract) => {
        if (!isEthereumAddress(contract))
          throw new UnsafeFundingDetails('WrongContract', 'a swap contract is not an Ethereum address');
        return contract.toLowerCase() as Address;
      }),
    ),
  ];
}

/** The (contract, order) of each log that is an `OrderFunded` of one of `contracts` for `funder`. */
function slotPointers(
  logs: unknown,
  contracts: readonly Address[],
  funder: Address,
): { contract: Address; orderId: string }[] {
  if (!Array.isArray(logs)) throw unreadable('the logs are not a list');
  const funderTopic = pad(funder);
  const pointers: { contract: Address; orderId: string }[] = [];
  for (const log of logs as unknown[]) {
    if (typeof log !== 'object' || log === null) throw unreadable('a log is not an object');
    const { address, topics, removed } = log as { address?: unknown; topics?: unknown; removed?: unknown };
    if (typeof address !== 'string' || !isEthereumAddress(address)) throw unreadable('a log has no address');
    if (
      !Array.isArray(topics) ||
      !(topics as unknown[]).every((topic) => typeof topic === 'string' && isZeroXHex(topic, 64))
    )
      throw unreadable('a log has topics that are not 32-byte words');
    if (removed !== undefined && typeof removed !== 'boolean') throw unreadable('a log says neither removed nor not');
    const [event, orderTopic, funderOfLog] = (topics as string[]).map((topic) => topic.toLowerCase());
    const contract = address.toLowerCase() as Address;
    if (removed === true || !contracts.includes(contract) || event !== ORDER_FUNDED_TOPIC) continue;
    if (funderOfLog !== funderTopic || orderTopic === undefined || !orderTopic.endsWith('0'.repeat(32))) continue;
    const orderId = normalizeOrderId(orderTopic.slice(2, 34));
    if (orderId !== undefined) pointers.push({ contract, orderId });
  }
  return pointers;
}

/** The funder's slot of the order as the contract holds it at `block`; undefined when it holds none. */
async function readSlot(
  client: SlotReader,
  contract: Address,
  orderId: string,
  funder: Address,
  block: bigint,
): Promise<RefundableSlot | undefined> {
  const answer = await ask(client, {
    method: 'eth_call',
    params: [
      {
        to: contract,
        data: encodeFunctionData({
          abi: SWAP_CONTRACT_SLOTS_ABI,
          functionName: 'slots',
          args: [orderIdToBytes16(orderId), funder],
        }),
      },
      hexQuantity(block),
    ],
  });
  if (typeof answer !== 'string' || !isZeroXHex(answer, SLOT_ANSWER_HEX_DIGITS))
    throw unreadable(`the contract ${contract} answered no slot`);
  let fields: readonly [Hex, Address, Address, bigint, bigint, number];
  try {
    fields = decodeFunctionResult({ abi: SWAP_CONTRACT_SLOTS_ABI, functionName: 'slots', data: answer as Hex });
  } catch {
    throw unreadable(`the contract ${contract} answered a slot that is not one`);
  }
  const [paymentHash, claimer, token, amount, refundHeight, stateIndex] = fields;
  if (stateIndex === 0) return undefined;
  const state = SLOT_STATES[stateIndex];
  if (state === undefined) throw unreadable(`the contract ${contract} answered a slot state it has not`);
  const open = state === 'funded';
  const tokenAddress = token.toLowerCase() as Address;
  return {
    orderId,
    contract,
    funder,
    amount,
    token: tokenAddress === ZERO_ADDRESS ? undefined : tokenAddress,
    paymentHash: paymentHash.slice(2).toLowerCase(),
    claimer: claimer.toLowerCase() as Address,
    refundHeight,
    state,
    open,
    refundableNow: open && block >= refundHeight,
    asOfBlock: block,
  };
}

/**
 * One call to the node. A call that fails (the node unreachable, an error answered, a body too large for the
 * transport) is named like garbage: either way the node told nothing the wallet can read.
 */
async function ask(client: SlotReader, call: { method: string; params?: unknown }): Promise<unknown> {
  try {
    return await client.request(call);
  } catch (error) {
    const said = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    throw unreadable(`${call.method} failed (${said.slice(0, 200)})`);
  }
}

function quantity(answer: unknown, what: string): bigint {
  if (typeof answer !== 'string' || !/^0x(?:0|[1-9a-f][0-9a-f]{0,15})$/iu.test(answer))
    throw unreadable(`${what} is not a block number`);
  return BigInt(answer);
}

function hexQuantity(value: bigint): Hex {
  return `0x${value.toString(16)}`;
}

function unreadable(reason: string): UnsafeFundingDetails {
  return new UnsafeFundingDetails('NodeAnswerUnreadable', `the node's answer cannot be read: ${reason}`);
}
