import type { Namespace } from 'socket.io';
import { LnswapError } from '../domain/errors.js';
import { findMarket, type ChainKind, type Network } from '../domain/markets.js';
import type { BlockHeightChange } from '../engine/block-height-tracker.js';
import { isPlainObject } from '../engine/payload-shapes.js';
import { blockHeightRoom } from './rooms.js';

export interface BlockHeightTopic {
  readonly chain: ChainKind;
  readonly network: Network;
}

const NETWORKS: readonly Network[] = ['mainnet', 'testnet', 'simnet'];

/**
 * `{ network, subnet }` names a chain kind and a network, as in `{ network: 'bitcoin', subnet: 'mainnet' }`
 * (any case); only chains some offered market settles on can be followed. Throws InvalidNetworkOrSubnet.
 */
export function readBlockHeightTopic(payload: unknown, offeredMarkets: readonly string[]): BlockHeightTopic {
  const fields = isPlainObject(payload) ? payload : {};
  const chain = typeof fields.network === 'string' ? fields.network.toLowerCase() : undefined;
  const network = typeof fields.subnet === 'string' ? fields.subnet.toLowerCase() : undefined;
  const offered = offeredMarkets.some((name) => {
    const market = findMarket(name);
    return market !== undefined && market.onchain.chain === chain && market.network === network;
  });
  if (!offered) throw new LnswapError('InvalidNetworkOrSubnet');
  return { chain: chain as ChainKind, network: network as Network };
}

/**
 * Announces a new height to this instance's subscribers only: every instance watches the chain views
 * itself, so a cluster-wide broadcast would reach each subscriber once per instance.
 */
export function announceBlockHeight(users: Namespace, change: BlockHeightChange): void {
  for (const network of NETWORKS) {
    users.local
      .to(blockHeightRoom(change.chain, network))
      .emit('blockHeightChanged', { network: change.chain, subnet: network, height: change.height });
  }
}
