import type { SwapContractVersion } from '../../domain/order.js';
import { readSwapContractCode, type SwapContractCodeMismatchKind } from '../../domain/swap-contract-code.js';

/**
 * The code at an address is not lnswap's swap contract (src/domain/swap-contract-code.ts says how one is known):
 * the service neither quotes on it nor follows it, since whatever a look-alike or a proxy answers, the code decides
 * where a funding goes. `mismatch` names what the code is instead.
 */
export class NotSwapContract extends Error {
  constructor(
    readonly address: string,
    readonly mismatch: SwapContractCodeMismatchKind,
    reason: string,
  ) {
    super(mismatch === 'NoCode' ? `no contract at ${address}` : `${address} is not lnswap's swap contract: ${reason}`);
    this.name = 'NotSwapContract';
  }
}

/**
 * The version of the swap contract at `address` from its runtime code (the node's `eth_getCode` answer, taken as it
 * came). Throws `NotSwapContract` for no code, code of any other contract, or an answer that is not code.
 */
export function swapContractVersionOfCode(address: string, code: unknown): SwapContractVersion {
  const read = readSwapContractCode(code);
  if ('mismatch' in read) throw new NotSwapContract(address, read.mismatch, read.reason);
  return read.version;
}
