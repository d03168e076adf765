/**
 * The seed of every property test (fast-check's `seed`), so that `npm test` draws the same cases on every run and a
 * failure seen once is seen again. `FC_SEED=<n>` draws others, to explore; a failure prints its seed and path.
 */
export const PROPERTY_SEED = Number(process.env['FC_SEED'] ?? 20261128);
