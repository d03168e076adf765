// The page's one client of the service: lnswap's client library (src/client), on the page's own origin.
import { createLnswapClient } from '../../src/client/index.js';

export { ServiceRefusal, ServiceTimeout, UnsafeFundingDetails } from '../../src/client/index.js';

export const client = createLnswapClient({ url: window.location.origin });

/**
 * What the tracker's order card follows, on the client's subscriptions: an order's states from a sequence on, and
 * a chain's heights. The client resumes both after a reconnect; `sawSequence` has nothing to do, since a state the
 * card has already read only makes it read the order once more. `stop` ends the subscriptions.
 */
export function cardFollower(onState, onHeight) {
  const subscriptions = [];
  const keep = (subscribing) =>
    void subscribing.then(
      (subscription) => subscriptions.push(subscription),
      () => {},
    );
  return {
    followOrder: (orderId, sinceSequence, onStateChanged) =>
      keep(
        client.subscribeToOrderState(
          orderId,
          (change) => {
            onStateChanged(change);
            onState(change.state);
          },
          { sinceSequence },
        ),
      ),
    sawSequence: () => undefined,
    followChain: (chain, network, listener) =>
      keep(
        client.subscribeToBlockHeight({ network: chain, subnet: network }, ({ height }) => {
          listener(height);
          onHeight(height);
        }),
      ),
    stop: () => {
      for (const subscription of subscriptions.splice(0)) void subscription.unsubscribe().catch(() => {});
    },
  };
}
