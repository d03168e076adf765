/**
 * The client address the n-th load client stands for, sent as X-Forwarded-For: each client is its own user, so
 * the per-address connection cap applies as it would to real users behind a load balancer.
 */
export function forwardedAddress(clientNumber: number): string {
  return `10.${(clientNumber >> 16) & 255}.${(clientNumber >> 8) & 255}.${clientNumber & 255}`;
}
