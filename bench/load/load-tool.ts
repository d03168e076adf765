export interface LoadRun {
  readonly baseUrl: string;
  /** Requested in this order, round and round; shuffle beforehand for a random pattern. */
  readonly paths: readonly string[];
  readonly seconds: number;
  readonly connections: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, socket errors and timeouts: a run with any is not a valid measurement. */
  readonly failures: number;
}

export interface LoadTool {
  readonly name: string;
  readonly version: string;
  run(run: LoadRun): Promise<LoadResult>;
}
