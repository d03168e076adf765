import { credentialFromRow, credentialsFromRows, credentialValues, type CredentialRow } from '../configuration-rows.js';
import type { ProviderStore } from '../store.js';
import { rows, writeAndNotify, type PostgresContext } from './context.js';
import {
  INSERT_CREDENTIAL,
  REVOKE_CREDENTIAL,
  SELECT_CREDENTIAL_BY_API_KEY,
  SELECT_CREDENTIALS,
  SET_PAYOUT_ADDRESS,
  SET_PROVIDER_ACTIVE,
} from './queries.js';
import * as writes from './writes.js';

export function postgresProviders(context: PostgresContext): ProviderStore {
  const { pool } = context;
  return {
    upsertProvider: (provider) =>
      writeAndNotify(context, { kind: 'configuration' }, (client) => writes.upsertProvider(client, provider)),
    setProviderActive: (id, active) =>
      writeAndNotify(context, { kind: 'configuration' }, async (client) => {
        await client.query({ ...SET_PROVIDER_ACTIVE, values: [active, id] });
      }),
    async addProviderCredential(credential) {
      await pool.query({ ...INSERT_CREDENTIAL, values: credentialValues(credential) });
    },
    async findProviderCredentialByApiKey(apiKey) {
      const [row] = await rows<CredentialRow>(context, SELECT_CREDENTIAL_BY_API_KEY, [apiKey]);
      return row === undefined ? undefined : credentialFromRow(row);
    },
    listProviderCredentials: async () => credentialsFromRows(await rows<CredentialRow>(context, SELECT_CREDENTIALS)),
    async revokeProviderCredential(name, at) {
      const result = await pool.query({ ...REVOKE_CREDENTIAL, values: [at, name] });
      return result.rowCount === 1;
    },
    async setProviderPayoutAddress(name, ethereumPayoutAddress) {
      const result = await pool.query({ ...SET_PAYOUT_ADDRESS, values: [ethereumPayoutAddress, name] });
      return result.rowCount === 1;
    },
  };
}
