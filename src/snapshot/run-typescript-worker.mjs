// Starts a worker thread written in TypeScript when lnswap runs from its sources (tests, tsx): a
// worker does not inherit the tsx loader of the thread that starts it. Built code never needs this.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.typescriptEntry);
