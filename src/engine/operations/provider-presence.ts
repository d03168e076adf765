import type { ProviderRecord } from '../../domain/order.js';

export interface PresenceCorrections {
  /** Active in the store, but no connection serves: left behind by an instance that stopped or crashed. */
  readonly deactivate: string[];
  /** Serving through a connection, but inactive in the store: marked so when another connection closed. */
  readonly activate: string[];
}

/**
 * What to change so the store's `active` flags match the providers actually serving.
 * Only providers holding a credential are judged: they are the ones that connect, while a provider
 * without one was put in the store by an import and keeps the flag it was given.
 * `storeBeforeLookup` must be read before the connections are looked up, so a provider that
 * connects in between is never deactivated; a wrong activation is undone by the next check.
 */
export function presenceCorrections(
  storeBeforeLookup: readonly ProviderRecord[],
  credentialNames: ReadonlySet<string>,
  servingProviderIds: ReadonlySet<string>,
): PresenceCorrections {
  const judged = storeBeforeLookup.filter((provider) => credentialNames.has(provider.id));
  const idsWhere = (wanted: (provider: ProviderRecord) => boolean) =>
    judged.filter(wanted).map((provider) => provider.id);
  return {
    deactivate: idsWhere((provider) => provider.active && !servingProviderIds.has(provider.id)),
    activate: idsWhere((provider) => !provider.active && servingProviderIds.has(provider.id)),
  };
}
