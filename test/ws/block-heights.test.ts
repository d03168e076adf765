import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catalogOf, KNOWN_CATALOG } from '../../src/domain/market-catalog.js';
import { readBlockHeightTopic } from '../../src/ws/block-heights.js';
import { refusal } from '../support/refusal.js';

const SUSDC = { ticker: 'SUSDC', network: 'simnet', address: `0x${'5f'.repeat(20)}`, decimals: 6 } as const;

test("an offered token market opens its Ethereum network's block heights, as ether's would", () => {
  const topic = { network: 'ethereum', subnet: 'ganache_simnet' };
  assert.deepEqual(readBlockHeightTopic(topic, ['SUSDC_LSBTC'], catalogOf({ tokens: [SUSDC] })), {
    chain: 'ethereum',
    network: 'simnet',
    subnet: 'ganache_simnet',
  });
  assert.equal(
    refusal(() => readBlockHeightTopic(topic, ['SUSDC_LSBTC'], KNOWN_CATALOG)),
    'InvalidNetworkOrSubnet',
    'a market whose token is not configured opens nothing',
  );
  assert.equal(
    refusal(() =>
      readBlockHeightTopic({ network: 'bitcoin', subnet: 'simnet' }, ['SUSDC_LSBTC'], catalogOf({ tokens: [SUSDC] })),
    ),
    'InvalidNetworkOrSubnet',
  );
});
