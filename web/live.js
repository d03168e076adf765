// One socket.io connection to /user/v1 for the whole page: order states and block heights, subscribed again
// after every reconnect, orders from the last sequence seen so that no move is missed (docs/websocket.md).
import { io } from '/assets/socket.io.esm.min.js';

export class Live {
  #socket;
  #orders = new Map();
  #chains = new Map();

  constructor(onConnectionChange) {
    this.#socket = io('/user/v1', { transports: ['websocket', 'polling'] });
    this.#socket.on('connect', () => {
      onConnectionChange(true);
      for (const orderId of this.#orders.keys()) this.#subscribeOrder(orderId);
      for (const key of this.#chains.keys()) this.#subscribeChain(key);
    });
    this.#socket.on('disconnect', () => onConnectionChange(false));
    this.#socket.on('stateChanged', (event) => {
      const follower = this.#orders.get(event.orderId);
      if (follower === undefined || event.sequence <= follower.lastSequence) return;
      follower.lastSequence = event.sequence;
      follower.onStateChanged(event);
    });
    this.#socket.on('blockHeightChanged', ({ network, subnet, height }) => {
      for (const listener of this.#chains.get(`${network}/${subnet}`) ?? []) listener(height);
    });
  }

  /** Calls `onStateChanged` for each state after `lastSequence`, replayed first, then live. */
  followOrder(orderId, lastSequence, onStateChanged) {
    this.#orders.set(orderId, { lastSequence, onStateChanged });
    if (this.#socket.connected) this.#subscribeOrder(orderId);
  }

  /** A reload read the history up to `sequence`: events up to it are old news. */
  sawSequence(orderId, sequence) {
    const follower = this.#orders.get(orderId);
    if (follower !== undefined && sequence > follower.lastSequence) follower.lastSequence = sequence;
  }

  unfollowAll() {
    for (const orderId of this.#orders.keys()) this.#socket.emit('unsubscribeFromOrderState', { orderId }, () => {});
    this.#orders.clear();
    for (const key of this.#chains.keys()) {
      const [network, subnet] = key.split('/');
      this.#socket.emit('unsubscribeFromBlockHeight', { network, subnet }, () => {});
    }
    this.#chains.clear();
  }

  followChain(network, subnet, listener) {
    const key = `${network}/${subnet}`;
    const listeners = this.#chains.get(key);
    if (listeners !== undefined) {
      listeners.add(listener);
      return;
    }
    this.#chains.set(key, new Set([listener]));
    if (this.#socket.connected) this.#subscribeChain(key);
  }

  #subscribeOrder(orderId) {
    const follower = this.#orders.get(orderId);
    this.#socket.emit('subscribeToOrderState', { orderId, sinceSequence: follower.lastSequence }, () => {});
  }

  #subscribeChain(key) {
    const [network, subnet] = key.split('/');
    // A chain no offered market settles on is refused (InvalidNetworkOrSubnet): its heights then stay as read.
    this.#socket.emit('subscribeToBlockHeight', { network, subnet }, () => {});
  }
}
