import { getAddress, type Address } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import { ethereumChainFitsNetwork } from '../domain/chain-networks.js';
import { assetOfIn, countedObservations, slotTermsOf, type AssetOfOrder } from '../domain/ethereum-slots.js';
import { catalogOf } from '../domain/market-catalog.js';
import { orderIdToBytes16 } from '../domain/order-ids.js';
import type { OrderRecord } from '../domain/order.js';
import type { Store } from '../store/store.js';
import { connectWallet } from '../chains/ethereum/wallet-connection.js';
import { accountOfKey, nodeFailureOrItself } from './ethereum-wallet.js';

export interface AdminRefundRequest {
  readonly rpcUrl: string;
  readonly orderId: string;
  readonly privateKey: `0x${string}`;
  /** Refund whatever the order's state; without it only AddressBlacklistedWaitingForRefundTx. */
  readonly force: boolean;
}

/** The state whose refund is the operator's to send: the provider may not pay the user's address. */
const ADMIN_REFUND_STATE = 'AddressBlacklistedWaitingForRefundTx';
/** `State.Funded` of the contract's slots: money in, neither claimed nor refunded. */
const SLOT_FUNDED = 1;

/**
 * Sends `adminRefund(order, funder)` from the owner's key for each of the order's matching slots the contract
 * still holds, one transaction each, and reports each hash through `say`. Foreign slots under the order id
 * are left alone: they are not the order's, and their funders refund them after their own refund height.
 */
export async function adminRefundFromCli(
  store: Store,
  request: AdminRefundRequest,
  say: (line: string) => void,
): Promise<void> {
  try {
    await adminRefund(store, request, say);
  } catch (error) {
    throw nodeFailureOrItself(error, request.rpcUrl);
  }
}

async function adminRefund(store: Store, request: AdminRefundRequest, say: (line: string) => void): Promise<void> {
  const account = accountOfKey(request.privateKey, 'OWNER_PRIVATE_KEY');
  const order = await store.getOrder(request.orderId);
  if (order === undefined) throw new Error(`no order ${request.orderId}`);
  const configuration = await store.getConfiguration();
  // A configured token's order is refunded like an ether order: its market is in the configuration's catalog.
  const assetOf = assetOfIn(catalogOf(configuration));
  const asset = assetOf(order);
  if (asset?.chain !== 'ethereum') throw new Error(`order ${order.id} is not paid on Ethereum`);
  const terms = slotTermsOf(order, assetOf);
  if (terms === undefined) throw new Error(`order ${order.id} names no claimer: no slot in the contract is its`);
  if (order.state !== ADMIN_REFUND_STATE && !request.force) {
    throw new Error(`order ${order.id} is ${order.state}, not ${ADMIN_REFUND_STATE}: refusing without --force`);
  }
  const contract = configuration.chains.ethereum?.swapContractAddress;
  if (contract === undefined) throw new Error('the store names no swap contract (chains.ethereum)');

  const { chainId, publicClient, walletClient } = await connectWallet(request.rpcUrl, account);
  if (!ethereumChainFitsNetwork(chainId, asset.network)) {
    throw new Error(`refusing the Ethereum node: chain id ${chainId} does not fit the order's ${asset.network} market`);
  }
  const address = getAddress(contract);
  const owner = await publicClient.readContract({ address, abi: SWAP_CONTRACT_ARTIFACT_ABI, functionName: 'owner' });
  if (owner.toLowerCase() !== account.address.toLowerCase()) {
    throw new Error(
      `OWNER_PRIVATE_KEY's account ${account.address} is not the owner ${owner} of the swap contract ${address}`,
    );
  }

  const orderUUID = orderIdToBytes16(order.id);
  const openSlots: { funder: Address; amount: bigint }[] = [];
  for (const funder of await matchingFunders(store, order, assetOf)) {
    const [paymentHash, claimer, token, amount, , state] = await publicClient.readContract({
      address,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'slots',
      args: [orderUUID, funder],
    });
    // The chain, not the store, has the last word on what the slot holds and whether it is still open.
    const same =
      paymentHash.slice(2).toLowerCase() === terms.paymentHash &&
      claimer.toLowerCase() === terms.claimer &&
      token.toLowerCase() === terms.token;
    if (same && state === SLOT_FUNDED) openSlots.push({ funder, amount });
  }
  if (openSlots.length === 0) throw new Error(`order ${order.id} has no open slot to refund`);

  say(`refunding ${openSlots.length} slot(s) of order ${order.id} on chain id ${chainId} from ${account.address}`);
  for (const { funder, amount } of openSlots) {
    const { request: call } = await publicClient.simulateContract({
      address,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'adminRefund',
      args: [orderUUID, funder],
      account,
    });
    const hash = await walletClient.writeContract(call);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`the admin refund ${hash} of ${funder}'s slot failed`);
    say(`${hash} refunded ${amount} wei to ${funder}`);
  }
}

/** The funders of the order's matching slots, as the watcher stored them. */
async function matchingFunders(store: Store, order: OrderRecord, assetOf: AssetOfOrder): Promise<Address[]> {
  const observations = await store.listChainObservations('ethereum', [order.id]);
  const funders = countedObservations(order, observations, 'ethereum', assetOf).flatMap((observation) =>
    observation.kind === 'funding' && observation.funder !== undefined ? [observation.funder] : [],
  );
  return [...new Set(funders)].map((funder) => getAddress(funder));
}
