import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import type { Socket } from 'socket.io';

/**
 * Which proxies in front of the service are believed about the client's address, as Fastify's `trustProxy`:
 * false believes none (the TCP peer is the client), a number N believes the N nearest hops, a list believes the
 * proxies at those addresses, subnets (CIDR) or named ranges (`loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | number | readonly string[];

/**
 * IPv6 clients are keyed by their /56: an ISP hands a customer at least that much, so keying single addresses
 * would give one client 2^72 budgets.
 */
export const IPV6_KEY_PREFIX = 56;

/** Malformed X-Forwarded-For headers are logged at most this often, however many arrive. */
export const MALFORMED_HEADER_LOG_INTERVAL_MS = 60_000;

/** The longest header text quoted in the log line: the header is client data. */
const LOGGED_HEADER_CHARS = 64;

/** Reads `--trust-proxy`'s text: `false`, a hop count, or a comma-separated list of addresses, subnets or ranges. */
export function parseTrustProxy(text: string): TrustProxy | { readonly invalid: string } {
  if (text === 'false' || text === '0') return false;
  if (text === 'true') {
    return {
      invalid:
        'must say whom to trust: true would believe whatever the client writes; give the number of proxies in front (e.g. 1) or their addresses',
    };
  }
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const addresses = text.split(',').map((entry) => entry.trim());
  try {
    proxyaddr.compile(addresses);
  } catch {
    return {
      invalid:
        'must be false, a number of proxies, or comma-separated proxy addresses, subnets (CIDR) or loopback, linklocal, uniquelocal',
    };
  }
  return addresses;
}

/**
 * The key rate limits and the connection cap count a client by: its address, validated and written one way
 * (IPv4-mapped IPv6 as IPv4, IPv6 as its /56); undefined for text that is no IP address.
 */
export function addressKey(address: string | undefined): string | undefined {
  // Node's check is the strict one: ipaddr.js also takes shorthand such as `127.1` or `0x7f.1`.
  if (address === undefined || isIP(address) === 0) return undefined;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_KEY_PREFIX}`).toString()}/${IPV6_KEY_PREFIX}`;
}

/** What an address is worked out from: an engine.io connection's peer and handshake headers. */
export interface EngineConnection {
  readonly remoteAddress: string;
  readonly request: { readonly headers: IncomingHttpHeaders };
}

/**
 * Each connection's client address, worked out once from its handshake. Behind trusted proxies it is the address
 * the farthest trusted proxy saw, found walking X-Forwarded-For from its right end (the entry the nearest proxy
 * appended) and stopping at the first untrusted hop, so entries a client writes itself are never reached. A header
 * whose chosen entry is no IP address is ignored: the connection counts as its TCP peer, and one line a minute says so.
 */
export class ClientAddresses {
  private readonly known = new WeakMap<EngineConnection, string>();
  private readonly trust: ((address: string, hop: number) => boolean) | undefined;
  private lastLoggedAt = Number.NEGATIVE_INFINITY;
  private unlogged = 0;

  constructor(
    trustProxy: TrustProxy,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    if (trustProxy === false || trustProxy === 0) this.trust = undefined;
    else if (typeof trustProxy === 'number') this.trust = (_address, hop) => hop < trustProxy;
    else this.trust = proxyaddr.compile([...trustProxy]);
  }

  of(socket: Socket): string {
    return this.ofConnection(socket.conn);
  }

  /** The address of an engine.io connection, the same as its sockets': known before any of its packets is read. */
  ofConnection(connection: EngineConnection): string {
    let address = this.known.get(connection);
    if (address === undefined) {
      address = this.work(connection.remoteAddress, connection.request.headers);
      this.known.set(connection, address);
    }
    return address;
  }

  private work(peer: string, headers: IncomingHttpHeaders): string {
    // The peer comes from the operating system, so it is an address; a Unix socket has none and shares one key.
    const peerKey = addressKey(peer) ?? peer;
    if (this.trust === undefined) return peerKey;
    // proxy-addr reads only these two fields; the peer is engine.io's copy, taken while the connection was open.
    const request = { headers, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
    const trusted = proxyaddr.all(request, this.trust);
    const key = addressKey(trusted[trusted.length - 1]);
    if (key !== undefined) return key;
    this.malformed(peer, headers['x-forwarded-for']);
    return peerKey;
  }

  private malformed(peer: string, header: string | string[] | undefined): void {
    const now = this.now();
    if (now - this.lastLoggedAt < MALFORMED_HEADER_LOG_INTERVAL_MS) {
      this.unlogged += 1;
      return;
    }
    const text = Array.isArray(header) ? header.join(', ') : (header ?? '');
    this.logger.warn(
      { peer, header: text.slice(0, LOGGED_HEADER_CHARS), headerLength: text.length, alsoIgnored: this.unlogged },
      'malformed X-Forwarded-For ignored: the connection counts as its proxy',
    );
    this.lastLoggedAt = now;
    this.unlogged = 0;
  }
}
