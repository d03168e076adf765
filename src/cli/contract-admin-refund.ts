import { getAddress } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import { ethereumChainFitsNetwork } from '../domain/chain-networks.js';
import { assetOfIn, slotTermsOf } from '../domain/ethereum-slots.js';
import { catalogOf } from '../domain/market-catalog.js';
import { orderIdToBytes16 } from '../domain/order-ids.js';
import { orderSlots } from '../domain/order-slots.js';
import { swapContractOfOrder } from '../domain/swap-contracts.js';
import type { Store } from '../store/store.js';
import { connectWallet } from '../chains/ethereum/wallet-connection.js';
import { baseUnitsText, planAdminRefund, weiText, type AdminRefundChoice } from './admin-refund-plan.js';
import { estimateAdminRefunds, openMatchingSlots, sendAdminRefunds } from './admin-refund-transactions.js';
import { accountOfKey, nodeFailureOrItself } from './ethereum-wallet.js';

export interface AdminRefundRequest {
  readonly rpcUrl: string;
  readonly orderId: string;
  readonly privateKey: `0x${string}`;
  /** Refund whatever the order's state; without it only AddressBlacklistedWaitingForRefundTx. */
  readonly force: boolean;
  /** Which open matching slots to refund: the order's own unless `--funder` or `--all` says otherwise. */
  readonly choice: AdminRefundChoice;
  /** Print what would be refunded and skipped, and the gas, and send nothing. */
  readonly dryRun: boolean;
}

/** The state whose refund is the operator's to send: the provider may not pay the user's address. */
const ADMIN_REFUND_STATE = 'AddressBlacklistedWaitingForRefundTx';

/**
 * Sends `adminRefund(order, funder)` from the owner's key for the open matching slots `request.choice` picks, one
 * transaction each, and reports through `say` what it refunds, what it skips (with amounts) and the gas it will
 * spend before sending anything. By default only the order's own slots are refunded: anyone can open a matching
 * slot for 1 wei, and refunding each would make the operator pay about 52,700 gas for it. Foreign slots under
 * the order id are never touched: they are not the order's, and their funders refund them after their own
 * refund height.
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
  const view = configuration.chains.ethereum;
  if (view === undefined) throw new Error('the store names no swap contract (chains.ethereum)');
  // The order's money is in the contract it was made on, which may no longer be the one new quotes use.
  const contract = swapContractOfOrder(order, view).address;

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

  const slots = { address, orderUUID: orderIdToBytes16(order.id), account, publicClient, walletClient };
  const observations = await store.listChainObservations('ethereum', [order.id]);
  const open = await openMatchingSlots(slots, orderSlots(order, observations, 'ethereum', assetOf), terms);
  const plan = planAdminRefund(open, request.choice);
  if (plan.unknownFunders.length > 0) {
    throw new Error(`--funder ${plan.unknownFunders.join(', ')}: no open matching slot of order ${order.id}`);
  }
  if (plan.refund.length === 0) {
    const dust =
      plan.skip.length === 0 ? '' : ` by default; ${plan.skip.length} dust slot(s) skipped (--funder or --all)`;
    throw new Error(`order ${order.id} has no open slot to refund${dust}`);
  }

  const estimates = await estimateAdminRefunds(slots, plan.refund);
  const gasPrice = await publicClient.getGasPrice();
  const totalGas = estimates.reduce((total, { gas }) => total + gas, 0n);

  say(
    `order ${order.id} on chain id ${chainId}: refunding ${plan.refund.length} of ${open.length} open matching ` +
      `slot(s) from ${account.address}`,
  );
  for (const { slot, gas } of estimates) {
    say(`refund ${slot.funder} ${baseUnitsText(slot.amount, asset)} (${slot.role}): gas ${gas}`);
  }
  for (const slot of plan.skip) say(`skip ${slot.funder} ${baseUnitsText(slot.amount, asset)} (${slot.reason})`);
  say(
    `gas: ${totalGas} in ${estimates.length} transaction(s), about ${weiText(totalGas * gasPrice)} ` +
      `at the current gas price of ${gasPrice} wei`,
  );
  if (request.dryRun) {
    say('dry run: nothing sent');
    return;
  }

  const spent = await sendAdminRefunds(slots, estimates, (hash, slot) =>
    say(`${hash} refunds ${baseUnitsText(slot.amount, asset)} to ${slot.funder}`),
  );
  say(`spent ${spent.gas} gas, ${weiText(spent.wei)}`);
  if (spent.failed.length > 0) {
    throw new Error(`${spent.failed.length} admin refund(s) failed on chain, the first ${spent.failed[0]}`);
  }
}
