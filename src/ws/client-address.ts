import type { Socket } from 'socket.io';

/**
 * The address rate limits are keyed by. Behind a load balancer every connection comes from the
 * balancer, so with `trustProxy` the first X-Forwarded-For entry, set by the balancer, is used.
 */
export function clientAddress(socket: Socket, trustProxy: boolean): string {
  if (trustProxy) {
    const header = socket.handshake.headers['x-forwarded-for'];
    const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return socket.handshake.address;
}
