import type { ProviderStore } from '../store.js';
import type { Guard } from '../guard.js';

export function guardProviders(inner: ProviderStore, guard: Guard): ProviderStore {
  return {
    upsertProvider: (provider) => guard(() => inner.upsertProvider(provider)),
    setProviderActive: (id, active) => guard(() => inner.setProviderActive(id, active)),
    addProviderCredential: (credential) => guard(() => inner.addProviderCredential(credential)),
    findProviderCredentialByApiKey: (apiKey) => guard(() => inner.findProviderCredentialByApiKey(apiKey)),
    listProviderCredentials: () => guard(() => inner.listProviderCredentials()),
    revokeProviderCredential: (name, at) => guard(() => inner.revokeProviderCredential(name, at)),
    setProviderPayoutAddress: (name, ethereumPayoutAddress) =>
      guard(() => inner.setProviderPayoutAddress(name, ethereumPayoutAddress)),
  };
}
