import type { ConfigurationReadStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardConfigurationReads(inner: ConfigurationReadStore, guard: Guard): ConfigurationReadStore {
  return {
    getConfiguration: () => guard(() => inner.getConfiguration()),
  };
}
