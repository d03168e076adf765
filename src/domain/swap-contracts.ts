import type { CooperativeRefundDomain } from './cooperative-refund.js';
import { LnswapError } from './errors.js';
import type { EthereumChainView, OrderRecord, SwapContract, SwapContractVersion } from './order.js';

/** The version of a contract the history does not name: the second, the only one before the history was kept. */
export const UNRECORDED_CONTRACT_VERSION: SwapContractVersion = 2;

/** The versions `lnswap contract deploy` and the watcher know, oldest first. */
export const SWAP_CONTRACT_VERSIONS: readonly SwapContractVersion[] = [2, 3];

export function isSwapContractVersion(value: unknown): value is SwapContractVersion {
  return value === 2 || value === 3;
}

/** Every contract of the view's history, oldest first, the current one always among them. */
export function swapContractsOf(view: EthereumChainView): readonly SwapContract[] {
  const current = view.swapContractAddress.toLowerCase();
  const contracts = view.contracts ?? [];
  if (contracts.some((contract) => contract.address === current)) return contracts;
  return [...contracts, { address: current, version: UNRECORDED_CONTRACT_VERSION, since: 0 }];
}

/**
 * The view once new quotes use `contract`: it becomes the current contract (in the spelling given) and the newest of
 * the history, which keeps every other contract so their orders stay watched. A contract used before moves to the
 * end with its new `since`.
 */
export function switchSwapContract(view: EthereumChainView, contract: SwapContract): EthereumChainView {
  const address = contract.address.toLowerCase();
  const earlier = swapContractsOf(view).filter((known) => known.address !== address);
  return {
    blockHeight: view.blockHeight,
    swapContractAddress: contract.address,
    contracts: [...earlier, { ...contract, address }],
  };
}

/** The history's record of the contract at `address`, if any. */
export function recordedSwapContract(view: EthereumChainView, address: string): SwapContract | undefined {
  const lowercase = address.toLowerCase();
  return (view.contracts ?? []).find((contract) => contract.address === lowercase);
}

/**
 * The contract an Ethereum order was made on: its `payToAddress`, which the quote set to the contract of its
 * time (and a snapshot carries). Its version is the history's, or the second's when the history does not name it
 * (an order imported with a contract this service never used). The address keeps the order's spelling.
 */
export function swapContractOfOrder(order: OrderRecord, view: EthereumChainView): SwapContract {
  const address = order.payToAddress.toLowerCase();
  const known = swapContractsOf(view).find((contract) => contract.address === address);
  // The order's own spelling of the address, which its funding details have always shown.
  return {
    address: order.payToAddress,
    version: known?.version ?? UNRECORDED_CONTRACT_VERSION,
    since: known?.since ?? 0,
  };
}

/**
 * The EIP-712 domain an order's cooperative refunds and cancels are signed in: its swap contract on the chain
 * `chainId` names. Only a third-version contract on Ethereum has one (ContractHasNoCooperativeRefund); without the
 * node's chain id the service cannot name it (NoBackendConfigured).
 */
export function signingDomainOfOrder(
  order: OrderRecord,
  onchainChain: string,
  view: EthereumChainView | undefined,
  chainId: number | undefined,
): CooperativeRefundDomain {
  if (onchainChain !== 'ethereum' || view === undefined) throw new LnswapError('ContractHasNoCooperativeRefund');
  const contract = swapContractOfOrder(order, view);
  if (contract.version < 3) throw new LnswapError('ContractHasNoCooperativeRefund');
  if (chainId === undefined) throw new LnswapError('NoBackendConfigured');
  return { chainId, verifyingContract: contract.address };
}
