import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent. V8 picks the
 * factor itself, up to 4x when collections are cheap, and a server answering tens of thousands of reads a second
 * promotes short-lived garbage steadily, so the heap of a server with ~30 MB live grows several times over between
 * collections. At 1.5x the server's RSS stays 50-70 MB lower for the same throughput (BENCHMARKS.md); a full
 * collection of a ~30 MB live heap costs a few milliseconds.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's growth factor for the old generation; 0 gives the choice back to V8. Node refuses the flag in
 * NODE_OPTIONS, and V8 reads it at every full collection, so the server sets it itself once it starts.
 */
export function boundHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
