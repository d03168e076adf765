const PROVIDER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A provider's id is the name its credential was issued under: 1 to 64 letters, digits, dots, dashes, underscores. */
export function isValidProviderName(name: string): boolean {
  return PROVIDER_NAME_PATTERN.test(name);
}
