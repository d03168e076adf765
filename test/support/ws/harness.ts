import { randomBytes, scryptSync } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { io } from 'socket.io-client';
import connectLegacy from 'socket.io-client-v2';
import { isValidProviderName } from '../../../src/domain/provider-names.js';
import type { BitcoinWatchOptions } from '../../../src/engine/chain-following/bitcoin-watch.js';
import type { EthereumWatchOptions } from '../../../src/engine/chain-following/ethereum-watch.js';
import type { EngineOptions } from '../../../src/engine/operations/options.js';
import { startService, type RunningService } from '../../../src/service.js';
import type { OrderRecord } from '../../../src/domain/order.js';
import type { Store, StoreConfiguration } from '../../../src/store/store.js';
import type { SocketOptions } from '../../../src/ws/socket-options.js';
import { configuration, PROVIDER_PAYOUT_ADDRESS, seedStore } from '../fixtures.js';
import { openFreshStore, type FreshStore, type StoreKind } from '../stores.js';
import { testEngineOptions } from '../engine/helpers.js';

export const silentLogger = pino({ level: 'silent' });

/** What both client generations offer; the tests speak only through this. */
export interface Client {
  readonly connected: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener?: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  close(): unknown;
}

export type ClientGeneration = 'v4' | 'v2';

export interface Ack {
  success: boolean;
  message?: unknown;
}

const WAIT_MS = 5_000;

export interface ServiceOverrides {
  engine?: Partial<EngineOptions>;
  sockets?: Partial<SocketOptions>;
  /** Silent unless given. */
  logger?: Logger;
  ethereum?: EthereumWatchOptions;
  bitcoin?: BitcoinWatchOptions;
}

/** A debug-level logger that keeps every line it writes, parsed. */
export function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

/** Starts the real service (HTTP API and socket.io) on a free port. */
export async function startOnStore(
  store: Store,
  url: string,
  overrides: ServiceOverrides = {},
): Promise<RunningService> {
  return startService({
    store,
    host: '127.0.0.1',
    port: 0,
    logger: overrides.logger ?? silentLogger,
    databaseUrl: url,
    engine: testEngineOptions(overrides.engine),
    ...(overrides.sockets === undefined ? {} : { sockets: overrides.sockets }),
    ...(overrides.ethereum === undefined ? {} : { ethereum: overrides.ethereum }),
    ...(overrides.bitcoin === undefined ? {} : { bitcoin: overrides.bitcoin }),
  });
}

export interface TestService {
  readonly fresh: FreshStore;
  readonly service: RunningService;
  readonly clients: Client[];
  connect(namespace: '/user/v1' | '/provider/v1', generation?: ClientGeneration): Promise<Client>;
  /** Closes clients, service and store. */
  close(): Promise<void>;
}

export interface TestServiceSetup extends ServiceOverrides {
  /** Defaults to BTC_LBTC and ETH_LBTC with the fixture chain views and no providers. */
  configuration?: StoreConfiguration;
  orders?: readonly OrderRecord[];
}

export async function startTestService(kind: StoreKind, setup: TestServiceSetup = {}): Promise<TestService> {
  const fresh = await openFreshStore(kind);
  await seedStore(fresh.store, {
    configuration: setup.configuration ?? configuration({ providers: [] }),
    ...(setup.orders === undefined ? {} : { orders: setup.orders }),
  });
  const overrides = setup;
  const service = await startOnStore(fresh.store, fresh.url, overrides);
  const clients: Client[] = [];
  return {
    fresh,
    service,
    clients,
    async connect(namespace, generation = 'v4') {
      const client = await connectClient(service.url, namespace, generation);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.close();
      await service.close();
      await fresh.dispose();
    },
  };
}

/**
 * Connects a real socket.io client. The 4.x client goes straight to WebSocket; the 2.x client
 * starts with HTTP long-polling and upgrades, as browsers of that generation do.
 */
export function connectClient(
  baseUrl: string,
  namespace: string,
  generation: ClientGeneration = 'v4',
  headers: Record<string, string> = {},
): Promise<Client> {
  const client: Client =
    generation === 'v4'
      ? io(`${baseUrl}${namespace}`, {
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
          extraHeaders: headers,
        })
      : connectLegacy(`${baseUrl}${namespace}`, { forceNew: true, reconnection: false, extraHeaders: headers });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${generation} client did not connect to ${namespace}`)), WAIT_MS);
    client.on('connect', () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.on('connect_error', (error: never) => {
      clearTimeout(timer);
      reject(error as Error);
    });
  });
}

/** Emits a request and resolves with its ack. */
export function request(client: Client, event: string, payload?: unknown): Promise<Ack> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), WAIT_MS);
    client.emit(event, payload, (ack: Ack) => {
      clearTimeout(timer);
      resolve(ack);
    });
  });
}

/** The refusal token of a request that must fail. */
export async function refusalOf(client: Client, event: string, payload?: unknown): Promise<unknown> {
  const ack = await request(client, event, payload);
  if (ack.success) throw new Error(`${event} succeeded: ${JSON.stringify(ack)}`);
  return ack.message;
}

export async function succeed(client: Client, event: string, payload?: unknown): Promise<unknown> {
  const ack = await request(client, event, payload);
  if (!ack.success) throw new Error(`${event} was refused: ${JSON.stringify(ack)}`);
  return ack.message;
}

/** Collects every payload of `event` a client receives from now on. */
export function recordEvents<T>(client: Client, event: string): T[] {
  const received: T[] = [];
  client.on(event, (payload: never) => received.push(payload as T));
  return received;
}

/** Resolves with the first payload of `event` that satisfies `accept`. */
export function nextEvent<T>(client: Client, event: string, accept: (payload: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve, reject) => {
    const listener = (payload: never) => {
      if (!accept(payload as T)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(payload as T);
    };
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} event`));
    }, WAIT_MS);
    client.on(event, listener);
  });
}

// The suites' one `eventually`, offered here too so a socket test imports its whole harness at once.
export { eventually } from '../eventually.js';

export interface ProviderKeys {
  apiKey: string;
  secretKey: string;
}

/** scrypt cost of the credentials `addProvider` issues: a thirty-second of the production N = 2^15. */
const TEST_SCRYPT = { N: 2 ** 10, r: 8, p: 1 } as const;

/** A secret's hash in the stored form `scrypt$N$r$p$salt$hash` (salt and hash in base64url), at `TEST_SCRYPT`. */
function hashAtTestCost(secret: string): string {
  const { N, r, p } = TEST_SCRYPT;
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, 32, TEST_SCRYPT);
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * Issues a credential the way `lnswap providers add NAME --ethereum-payout ADDRESS` does; `null` issues it without a
 * payout address, as `lnswap providers add NAME` does. One difference: the secret is hashed at a lower scrypt cost.
 * A stored hash names its own cost (`scrypt$N$r$p$salt$hash`) and authentication checks every hash at the cost it
 * names through the same code, so each login of a test maker costs a millisecond instead of a tenth of a second.
 * Issuing at the production cost is tested in test/engine/operations/credentials.test.ts and test/cli/providers.test.ts.
 */
export async function addProvider(
  store: Store,
  name: string,
  ethereumPayoutAddress: string | null = PROVIDER_PAYOUT_ADDRESS,
): Promise<ProviderKeys> {
  if (!isValidProviderName(name)) throw new Error(`not a provider name: ${name}`);
  const keys = { apiKey: randomBytes(16).toString('hex'), secretKey: randomBytes(32).toString('base64url') };
  const payout = ethereumPayoutAddress === null ? {} : { ethereumPayoutAddress: ethereumPayoutAddress.toLowerCase() };
  const secretHash = hashAtTestCost(keys.secretKey);
  await store.addProviderCredential({ name, apiKey: keys.apiKey, secretHash, createdAt: Date.now(), ...payout });
  return keys;
}

/** Every request event of `/user/v1`, as its handlers are named (docs/asyncapi.yaml lists the same). */
export const USER_EVENTS: readonly string[] = [
  'requestQuote',
  'subscribeToOrderState',
  'unsubscribeFromOrderState',
  'subscribeToBlockHeight',
  'unsubscribeFromBlockHeight',
  'requestRefundDetails',
  'requestMarketRequirements',
  'broadcastTransaction',
];

/** Every request event of `/provider/v1`. */
export const PROVIDER_EVENTS: readonly string[] = [
  'authenticate',
  'activeConfiguration',
  'subscribeToQuotes',
  'unsubscribeFromQuotes',
  'makerQuote',
  'paymentResult',
  'refundAuthorization',
];
