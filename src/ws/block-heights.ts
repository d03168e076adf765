import type { Namespace } from 'socket.io';
import { LnswapError } from '../domain/errors.js';
import type { MarketCatalog } from '../domain/market-catalog.js';
import type { ChainKind, Network } from '../domain/markets.js';
import type { BlockHeightChange } from '../engine/chain-following/block-height-tracker.js';
import { payloadReader } from '../engine/lifecycle/payload-shapes.js';
import { blockHeightTopicShape } from '../wire/socket-payloads.js';
import { blockHeightRoom } from './rooms.js';

export interface BlockHeightTopic {
  readonly chain: ChainKind;
  readonly network: Network;
  /** The subnet as the subscriber named it (lower case): `blockHeightChanged` echoes it. */
  readonly subnet: string;
}

/**
 * The names each chain's networks go by. REDSHIFT's clients (`@radar/redshift-types`) call the
 * Ethereum testnet and simnet `kovan_testnet` and `ganache_simnet`, and their validator sends nothing
 * else; the plain names stay accepted for everyone else.
 */
const SUBNET_NAMES: Readonly<Record<ChainKind, Readonly<Record<string, Network>>>> = {
  bitcoin: { mainnet: 'mainnet', testnet: 'testnet', simnet: 'simnet' },
  ethereum: {
    mainnet: 'mainnet',
    testnet: 'testnet',
    kovan_testnet: 'testnet',
    simnet: 'simnet',
    ganache_simnet: 'simnet',
  },
};

function isChainKind(value: string | undefined): value is ChainKind {
  return value !== undefined && Object.hasOwn(SUBNET_NAMES, value);
}

const readTopic = payloadReader<{ network: string; subnet: string }>(blockHeightTopicShape);

/**
 * `{ network, subnet }` names a chain kind and one of its networks, as in
 * `{ network: 'ethereum', subnet: 'kovan_testnet' }` (any case); only chains some offered market
 * settles on can be followed. Throws InvalidNetworkOrSubnet.
 */
export function readBlockHeightTopic(
  payload: unknown,
  offeredMarkets: readonly string[],
  catalog: MarketCatalog,
): BlockHeightTopic {
  const fields = readTopic(payload);
  const chain = fields.network.toLowerCase();
  const subnet = fields.subnet.toLowerCase();
  if (!isChainKind(chain) || !Object.hasOwn(SUBNET_NAMES[chain], subnet)) {
    throw new LnswapError('InvalidNetworkOrSubnet');
  }
  const network = SUBNET_NAMES[chain][subnet] as Network;
  const offered = offeredMarkets.some((name) => {
    const market = catalog.findMarket(name);
    return market !== undefined && market.onchain.chain === chain && market.network === network;
  });
  if (!offered) throw new LnswapError('InvalidNetworkOrSubnet');
  return { chain, network, subnet };
}

/**
 * Announces a new height to this instance's subscribers only: every instance watches the chain views
 * itself, so a cluster-wide broadcast would reach each subscriber once per instance. Subscribers
 * hear the subnet by the name they subscribed with.
 */
export function announceBlockHeight(users: Namespace, change: BlockHeightChange): void {
  for (const subnet of Object.keys(SUBNET_NAMES[change.chain])) {
    users.local
      .to(blockHeightRoom(change.chain, subnet))
      .emit('blockHeightChanged', { network: change.chain, subnet, height: change.height });
  }
}
