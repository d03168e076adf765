import { parseAbi } from 'viem';

/** The events and views of the deployed swap contract that the watcher reads. */
export const SWAP_CONTRACT_WATCH_ABI = parseAbi([
  'event OrderFunded(bytes16 indexed orderUUID, address indexed funder, bytes32 paymentHash, uint256 amount, uint256 totalFunded, uint256 refundHeight)',
  'event OrderClaimed(bytes16 indexed orderUUID, bytes32 preimage, uint256 amount)',
  'event OrderRefunded(bytes16 indexed orderUUID, address indexed funder, uint256 amount, bool byAdmin)',
  'function refundDelay() view returns (uint256)',
  'function owner() view returns (address)',
]);
