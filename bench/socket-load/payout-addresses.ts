/**
 * The Ethereum payout address the bench's operator registers for its `index`-th provider, and the one that
 * provider's bot names as claimer: a quote naming any other is refused.
 */
export function payoutAddressOfProvider(index: number): string {
  return `0x${(index + 1).toString(16).padStart(40, '0')}`;
}
