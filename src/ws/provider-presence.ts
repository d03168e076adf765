import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import { presenceCorrections } from '../engine/operations/provider-presence.js';
import type { ConfigurationReadStore, ProviderStore } from '../store/store.js';

/** What a provider connection carries; fetchSockets shows it to every instance. */
export interface ProviderSocketData {
  providerId?: string;
  apiKey?: string;
  /** Markets of the connection's active configuration. */
  configuredMarkets?: string[];
}

function servesSomething(data: ProviderSocketData): data is ProviderSocketData & { providerId: string } {
  return data.providerId !== undefined && (data.configuredMarkets?.length ?? 0) > 0;
}

/**
 * Keeps the store's `active` flags equal to "authenticated, connected and configured", which the
 * requirements endpoints and quote requests read. Connections live on many instances, so the truth
 * is asked of all of them through the cluster adapter.
 */
export class ProviderPresence {
  private readonly pending = new Set<Promise<void>>();
  private shuttingDown = false;

  constructor(
    private readonly store: ConfigurationReadStore & ProviderStore,
    private readonly providers: Namespace,
    private readonly requestTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** A configured connection closed: the provider stays active only if another connection still serves. */
  providerLeft(providerId: string, socketId: string): void {
    const update = this.markLeft(providerId, socketId)
      .catch((error: unknown) => this.logger.error({ err: error, providerId }, 'could not mark a provider inactive'))
      .finally(() => this.pending.delete(update));
    this.pending.add(update);
  }

  /**
   * Disconnects connections whose credential was revoked, then corrects the store's flags: inactive
   * for providers no connection serves (such as those of an instance that crashed), active again
   * for providers still serving elsewhere. Skipped when some instance does not answer: acting on a
   * partial view would drop live providers.
   */
  async reconcile(): Promise<void> {
    await this.disconnectRevoked();
    const [{ providers }, credentials] = await Promise.all([
      this.store.getConfiguration(),
      this.store.listProviderCredentials(),
    ]);
    const serving = await this.servingProviders();
    if (serving === undefined) return;
    const credentialNames = new Set(credentials.map((credential) => credential.name));
    const corrections = presenceCorrections(providers, credentialNames, serving);
    for (const providerId of corrections.deactivate) {
      this.logger.info({ providerId }, 'provider no longer connected; marking it inactive');
      await this.store.setProviderActive(providerId, false);
    }
    for (const providerId of corrections.activate) await this.store.setProviderActive(providerId, true);
  }

  /**
   * Disconnects this instance's clients through `disconnect` and waits for the resulting store updates.
   * Their providers are marked inactive without asking the other instances, which may be slow to
   * answer an instance going away; one still serving elsewhere is marked active again by the next check.
   */
  async shutdown(disconnect: () => void): Promise<void> {
    this.shuttingDown = true;
    disconnect();
    await Promise.all(this.pending);
  }

  private async markLeft(providerId: string, socketId: string): Promise<void> {
    if (!this.shuttingDown) {
      const serving = await this.servingProviders(socketId);
      if (serving?.has(providerId)) return;
    }
    await this.store.setProviderActive(providerId, false);
  }

  /** Providers with a configured connection on any instance; undefined when some instance does not answer. */
  private async servingProviders(exceptSocketId?: string): Promise<Set<string> | undefined> {
    try {
      const sockets = await this.providers.timeout(this.requestTimeoutMs).fetchSockets();
      return new Set(
        sockets
          .filter((socket) => socket.id !== exceptSocketId)
          .map((socket) => socket.data as ProviderSocketData)
          .filter(servesSomething)
          .map((data) => data.providerId),
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'not every instance answered a lookup of provider connections');
      return undefined;
    }
  }

  private async disconnectRevoked(): Promise<void> {
    for (const socket of this.providers.sockets.values()) {
      const { apiKey } = socket.data as ProviderSocketData;
      if (apiKey === undefined) continue;
      const credential = await this.store.findProviderCredentialByApiKey(apiKey);
      if (credential === undefined || credential.revokedAt !== undefined) {
        this.logger.info({ providerId: credential?.name }, 'provider credential revoked; disconnecting');
        socket.disconnect(true);
      }
    }
  }
}
