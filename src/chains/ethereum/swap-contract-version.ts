import type { SwapContractVersion } from '../../domain/order.js';

/** `PUSH4 0xd11f56ec`: the dispatcher's test for `refundCooperative`, which only the third version has. */
const REFUND_COOPERATIVE_DISPATCH = '63d11f56ec';

/** A deployed swap contract's version, from its runtime code (hex, with or without `0x`). */
export function swapContractVersionOfCode(code: string): SwapContractVersion {
  return code.toLowerCase().includes(REFUND_COOPERATIVE_DISPATCH) ? 3 : 2;
}
