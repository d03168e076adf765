import { join } from 'node:path';
import { CACHE_DIR } from '../settings.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface SocketLoadSettings {
  readonly subscribers: number;
  /** Load processes holding the subscribers between them. */
  readonly subscriberProcesses: number;
  /** Seconds of moves (one per order per second). */
  readonly moveSeconds: number;
  readonly quoteSeconds: number;
  /** One measured round per count of concurrent users, to find where completed auctions per second stop rising. */
  readonly quoteUsers: readonly number[];
  readonly quoteDeadlineMs: number;
  readonly stores: readonly StoreKind[];
  readonly postgresUrl: string;
  readonly directory: string;
}

function whole(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) === 0)
    throw new Error(`${name} must be a positive whole number, got ${text}`);
  return Number(text);
}

function wholeList(name: string, fallback: readonly number[]): number[] {
  const text = process.env[name];
  if (text === undefined || text === '') return [...fallback];
  return text.split(',').map((part) => {
    if (!/^\d+$/.test(part.trim()) || Number(part) === 0)
      throw new Error(`${name} must list positive whole numbers, got ${text}`);
    return Number(part);
  });
}

function stores(): StoreKind[] {
  const text = process.env.BENCH_SOCKET_STORES ?? 'sqlite,postgres';
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (name !== 'sqlite' && name !== 'postgres')
      throw new Error(`BENCH_SOCKET_STORES names ${name}: use sqlite, postgres`);
  }
  return names as StoreKind[];
}

/** `npm run bench` runs the socket load unless BENCH_SOCKET_LOAD=0. */
export function socketLoadWanted(): boolean {
  return process.env.BENCH_SOCKET_LOAD !== '0';
}

export function readSocketLoadSettings(): SocketLoadSettings {
  return {
    subscribers: whole('BENCH_SUBSCRIBERS', 5_000),
    subscriberProcesses: whole('BENCH_SUBSCRIBER_PROCESSES', 1),
    moveSeconds: whole('BENCH_MOVE_SECONDS', 30),
    quoteSeconds: whole('BENCH_QUOTE_SECONDS', 10),
    quoteUsers: wholeList('BENCH_QUOTE_USERS', [16, 32, 64]),
    quoteDeadlineMs: whole('BENCH_QUOTE_DEADLINE_MS', 100),
    stores: stores(),
    postgresUrl: process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/test',
    directory: join(CACHE_DIR, 'socket-load'),
  };
}
