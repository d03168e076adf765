/**
 * A wallet's side of the protocol exactly as REDSHIFT's public client libraries speak it
 * (`@radar/redshift-api-client` on `@radar/redshift-types`): socket.io-client 2.x with its default
 * options (long-polling, then WebSocket), the library's event names and payload shapes, its
 * `{ success, message }` handling (a refusal rejects with `new Error(message)`, and nothing times
 * out), and its HTTP URL forms. Written for these tests from the libraries' documented behaviour.
 */
import { createHash } from 'node:crypto';
import connectLegacy from 'socket.io-client-v2';

type LegacyClientSocket = ReturnType<typeof connectLegacy>;

/** `@radar/redshift-types` names. */
export const Network = { BITCOIN: 'bitcoin', ETHEREUM: 'ethereum' } as const;
export const Subnet = {
  MAINNET: 'mainnet',
  TESTNET: 'testnet',
  SIMNET: 'simnet',
  KOVAN_TESTNET: 'kovan_testnet',
  GANACHE_SIMNET: 'ganache_simnet',
} as const;

interface WebSocketResponse {
  success: boolean;
  message?: unknown;
}

export class RedshiftHttpClient {
  private readonly apiBase: string;

  constructor(url: string) {
    this.apiBase = `${url}/api`;
  }

  getMarkets(): Promise<unknown> {
    return this.get('/markets');
  }

  getMarketRequirements(market?: string): Promise<unknown> {
    return this.get(market === undefined ? '/markets/requirements' : `/markets/${market}/requirements`);
  }

  /** The library hashes the invoice itself and leaves `onchainTicker` out when not given, as typed by the wallet. */
  getOrders(invoice: string, onchainTicker?: string): Promise<unknown> {
    const params = new URLSearchParams({ invoiceHash: createHash('sha256').update(invoice).digest('hex') });
    if (onchainTicker !== undefined) params.set('onchainTicker', onchainTicker);
    return this.get(`/orders?${params.toString()}`);
  }

  getOrder(orderId: string): Promise<unknown> {
    return this.get(`/orders/${orderId}`);
  }

  getOrderState(orderId: string): Promise<unknown> {
    return this.get(`/orders/${orderId}/state`);
  }

  getOrderFundDetails(orderId: string): Promise<unknown> {
    return this.get(`/orders/${orderId}/fundDetails`);
  }

  getOrderTransactions(orderId: string): Promise<unknown> {
    return this.get(`/orders/${orderId}/transactions`);
  }

  getOrderRefundDetails(orderId: string): Promise<unknown> {
    return this.get(`/orders/${orderId}/refund`);
  }

  /** Like axios: a non-2xx status rejects; a body that is JSON is parsed, anything else stays text. */
  private async get(path: string): Promise<unknown> {
    const response = await fetch(`${this.apiBase}${path}`);
    const body = await response.text();
    if (response.status < 200 || response.status >= 300) {
      throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
        status: response.status,
        body,
      });
    }
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }
}

export class RedshiftWebSocketClient {
  private socket: LegacyClientSocket | undefined;

  constructor(private readonly url: string) {}

  get connected(): boolean {
    return this.socket?.connected ?? false;
  }

  connect(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.socket = connectLegacy(`${this.url}/user/v1`, { forceNew: true, reconnection: false });
      this.socket.on('connect', () => resolve('SocketConnected'));
      this.socket.on('connect_error', () => reject(new Error('SocketConnectError')));
    });
  }

  disconnect(): void {
    this.socket?.close();
  }

  requestQuote(request: { market: string; invoice: string; refundAddress?: string }): Promise<unknown> {
    return this.call('requestQuote', request);
  }

  subscribeToOrderState(orderId: string): Promise<unknown> {
    return this.call('subscribeToOrderState', { orderId });
  }

  unsubscribeFromOrderState(orderId: string): Promise<unknown> {
    return this.call('unsubscribeFromOrderState', { orderId });
  }

  subscribeToBlockHeight(network: string, subnet: string): Promise<unknown> {
    return this.call('subscribeToBlockHeight', { network, subnet });
  }

  unsubscribeFromBlockHeight(network: string, subnet: string): Promise<unknown> {
    return this.call('unsubscribeFromBlockHeight', { network, subnet });
  }

  requestRefundDetails(orderId: string): Promise<unknown> {
    return this.call('requestRefundDetails', { orderId });
  }

  broadcastTransaction(request: { onchainTicker: string; signedTxHex: string }): Promise<unknown> {
    return this.call('broadcastTransaction', request);
  }

  requestMarketRequirements(): Promise<unknown> {
    return this.call('requestMarketRequirements', null);
  }

  onOrderStateChanged(listener: (update: unknown) => void): void {
    this.requireSocket().on('stateChanged', listener as (...args: never[]) => void);
  }

  onBlockHeightChanged(listener: (update: unknown) => void): void {
    this.requireSocket().on('blockHeightChanged', listener as (...args: never[]) => void);
  }

  private call(event: string, payload: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.requireSocket().emit(event, payload, ({ success, message }: WebSocketResponse) => {
        if (success) return resolve(message);
        return reject(new Error(message as string));
      });
    });
  }

  private requireSocket(): LegacyClientSocket {
    if (this.socket === undefined || !this.socket.connected) throw new Error('SocketNotConnected');
    return this.socket;
  }
}
