import type { ChainWatchStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardChainWatch(inner: ChainWatchStore, guard: Guard): ChainWatchStore {
  return {
    getChainWatch: (chain) => guard(() => inner.getChainWatch(chain)),
    listChainObservations: (chain, orderIds) => guard(() => inner.listChainObservations(chain, orderIds)),
    listOrdersOfTickersInStates: (tickers, states) => guard(() => inner.listOrdersOfTickersInStates(tickers, states)),
    applyChainStep: (step) => guard(() => inner.applyChainStep(step)),
    setChainViews: (chains) => guard(() => inner.setChainViews(chains)),
  };
}
