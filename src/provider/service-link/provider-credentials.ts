/** The provider's API key and secret from `lnswap providers add NAME`. */
export interface ProviderCredentials {
  apiKey: string;
  secretKey: string;
}

export const API_KEY_VARIABLE = 'LNSWAP_PROVIDER_API_KEY';
export const SECRET_KEY_VARIABLE = 'LNSWAP_PROVIDER_SECRET_KEY';

/**
 * Read from environment variables only: a flag would show in `ps` and shell history. A missing one
 * is named; a value is never repeated in an error.
 */
export function credentialsFromEnvironment(environment: NodeJS.ProcessEnv): ProviderCredentials {
  const apiKey = environment[API_KEY_VARIABLE];
  const secretKey = environment[SECRET_KEY_VARIABLE];
  if (apiKey === undefined || apiKey === '') throw new Error(`${API_KEY_VARIABLE} is not set`);
  if (secretKey === undefined || secretKey === '') throw new Error(`${SECRET_KEY_VARIABLE} is not set`);
  return { apiKey, secretKey };
}
