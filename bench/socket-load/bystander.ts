import { io, type Socket } from 'socket.io-client';
import { percentile } from './statistics.js';

/** What a bystander saw while others flooded: each answer's latency, one request at a time on each path. */
export interface BystanderFigures {
  /** `GET /api/markets` round trips, ms; a request still open at the end counts with its time so far. */
  readonly http: readonly number[];
  /** `requestMarketRequirements` ack round trips on `/user/v1` (the socket.io ping), ms, counted the same way. */
  readonly acks: readonly number[];
}

export interface BystanderSummary {
  readonly answers: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export function summarize(latencies: readonly number[]): BystanderSummary {
  return {
    answers: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.length === 0 ? 0 : Math.max(...latencies),
  };
}

/** A user of the instance, connected from 127.0.0.1 before the flood starts. */
export async function connectBystander(
  url: string,
): Promise<{ watch(stop: Promise<unknown>): Promise<BystanderFigures> }> {
  const socket = io(`${url}/user/v1`, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return { watch: (stop) => watch(url, socket, stop) };
}

/**
 * Keeps one HTTP request and one socket.io request in flight until `stop` resolves, each sent as soon as the
 * previous one is answered.
 */
async function watch(url: string, socket: Socket, stop: Promise<unknown>): Promise<BystanderFigures> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const loop = async (ask: () => Promise<unknown>): Promise<number[]> => {
    const latencies: number[] = [];
    while (!stopped) {
      const started = performance.now();
      const answered = await Promise.race([ask().then(() => true), stop.then(() => false)]);
      latencies.push(performance.now() - started);
      if (!answered) break;
    }
    return latencies;
  };
  try {
    const [http, acks] = await Promise.all([
      loop(async () => {
        const response = await fetch(`${url}/api/markets`);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`GET /api/markets answered ${response.status}`);
      }),
      loop(() => socket.timeout(60_000).emitWithAck('requestMarketRequirements', null)),
    ]);
    return { http, acks };
  } finally {
    socket.close();
  }
}
