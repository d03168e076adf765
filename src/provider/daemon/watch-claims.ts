import type { Logger } from 'pino';
import type { ChainKind } from '../../domain/markets.js';
import type { ProviderState } from '../state/provider-state.js';
import type { ChainSettlement, ClaimProgress } from './chain-settlement.js';
import type { ProviderMetrics } from './provider-metrics.js';
import { firstLineOf } from '../../domain/errors.js';

/**
 * One round over every claim not yet confirmed, nearest refund height first: each chain confirms,
 * sends or fee-bumps its own. A claim within the urgent window is logged at warn on every new block
 * count, one whose fee cannot rise further or that was lost at error: those need a person.
 */
export async function watchClaimsRound(
  state: ProviderState,
  chains: ReadonlyMap<ChainKind, ChainSettlement>,
  metrics: ProviderMetrics,
  logger: Logger,
  lastBlocksLogged: Map<string, number>,
): Promise<void> {
  const readings: { chain: ChainKind; orderId: string; progress: ClaimProgress }[] = [];
  for (const claim of state.openClaims()) {
    const chain = chains.get(claim.chain);
    if (chain === undefined) continue;
    const fields = { orderId: claim.orderId, chain: claim.chain, refundHeight: claim.refundHeight };
    let progress: ClaimProgress;
    try {
      progress = await chain.watchClaim(claim);
    } catch (error) {
      logger.error({ ...fields, error: firstLineOf(error) }, 'claim failed; trying again');
      continue;
    }
    readings.push({ chain: claim.chain, orderId: claim.orderId, progress });
    switch (progress.kind) {
      case 'confirmed':
        lastBlocksLogged.delete(claim.orderId);
        logger.info({ ...fields, txId: progress.txId }, 'claim confirmed');
        break;
      case 'lost':
        lastBlocksLogged.delete(claim.orderId);
        logger.error(fields, 'claim LOST: the funds went back to the user after the invoice was paid');
        break;
      case 'sent':
        logger.info({ ...fields, txId: progress.txId, rate: progress.rate.toString() }, 'claim sent');
        break;
      case 'bumped':
        logger.warn(
          { ...fields, txId: progress.txId, rate: progress.rate.toString(), blocksLeft: progress.blocksLeft },
          'claim not confirmed: sent again at a higher fee',
        );
        break;
      case 'capped':
        logger.error(
          { ...fields, blocksLeft: progress.blocksLeft },
          'claim AT RISK at the maximum fee: not confirmed and the refund height is near',
        );
        break;
      case 'waiting':
        if (progress.atRisk && lastBlocksLogged.get(claim.orderId) !== progress.blocksLeft) {
          lastBlocksLogged.set(claim.orderId, progress.blocksLeft);
          logger.warn(
            { ...fields, blocksLeft: progress.blocksLeft },
            'claim AT RISK: not confirmed near the refund height',
          );
        }
        break;
    }
  }
  metrics.claimsWatched(readings);
}
