import type { ChainKind } from '../../domain/markets.js';
import type { ChainViews } from '../../domain/order.js';

export interface BlockHeightChange {
  readonly chain: ChainKind;
  readonly height: number;
}

/**
 * Remembers the last block height seen per chain and reports which changed. The first reading only
 * sets the baseline: a service that just started has no earlier height to compare with.
 */
export class BlockHeightTracker {
  private last: Partial<Record<ChainKind, number>> | undefined;

  update(chains: ChainViews): BlockHeightChange[] {
    const current: Partial<Record<ChainKind, number>> = {};
    if (chains.bitcoin !== undefined) current.bitcoin = chains.bitcoin.blockHeight;
    if (chains.ethereum !== undefined) current.ethereum = chains.ethereum.blockHeight;
    const previous = this.last;
    this.last = current;
    if (previous === undefined) return [];
    return (Object.keys(current) as ChainKind[]).flatMap((chain) => {
      const height = current[chain];
      return height === undefined || height === previous[chain] ? [] : [{ chain, height }];
    });
  }
}
