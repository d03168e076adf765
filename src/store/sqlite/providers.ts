import { credentialFromRow, credentialsFromRows, credentialValues, type CredentialRow } from '../configuration-rows.js';
import type { ProviderStore } from '../store.js';
import { importSettled, type SqliteContext } from './context.js';

export function sqliteProviders(context: SqliteContext): ProviderStore {
  const { statements, writes, changes } = context;
  return {
    async upsertProvider(provider) {
      await importSettled(context);
      writes.upsertProvider(provider);
      changes.report({ kind: 'configuration' });
    },
    async setProviderActive(id, active) {
      await importSettled(context);
      statements.setProviderActive.run(active ? 1 : 0, id);
      changes.report({ kind: 'configuration' });
    },
    async addProviderCredential(credential) {
      await importSettled(context);
      statements.insertCredential.run(...credentialValues(credential));
    },
    async findProviderCredentialByApiKey(apiKey) {
      const row = statements.selectCredentialByApiKey.get(apiKey) as CredentialRow | undefined;
      return row === undefined ? undefined : credentialFromRow(row);
    },
    listProviderCredentials: async () => credentialsFromRows(statements.selectCredentials.all() as CredentialRow[]),
    async revokeProviderCredential(name, at) {
      await importSettled(context);
      return statements.revokeCredential.run(at, name).changes === 1;
    },
    async setProviderPayoutAddress(name, ethereumPayoutAddress) {
      await importSettled(context);
      return statements.setPayoutAddress.run(ethereumPayoutAddress, name).changes === 1;
    },
  };
}
