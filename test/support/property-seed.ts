/**
 * The seed of every property test (fast-check's `seed`), so that `npm test` draws the same cases on every run and a
 * failure seen once is seen again. `FC_SEED=<n>` draws others, to explore; a failure prints its seed and path.
 */
export const PROPERTY_SEED = seedFrom(process.env['FC_SEED']);

function seedFrom(text: string | undefined): number {
  if (text === undefined) return 20261128;
  const seed = Number(text);
  // fast-check would take NaN or a fraction without a word, drawing other cases than the ones asked for.
  if (text.trim() === '' || !Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, not "${text}"`);
  return seed;
}
