import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseActiveConfiguration } from '../../../src/engine/lifecycle/active-configuration.js';
import { payReq } from '../../support/fixtures.js';
import { refusal as tokenOfRefusal } from '../../support/refusal.js';

const OFFERED = ['BTC_LBTC', 'ETH_LBTC'];

function refusal(payload: unknown): string {
  return tokenOfRefusal(() => parseActiveConfiguration(payload, OFFERED));
}

describe('parseActiveConfiguration', () => {
  test('reads decimal strings and safe integers into base units, markets in canonical spelling and given order', () => {
    const parsed = parseActiveConfiguration(
      {
        eth_lbtc: { payReq: { minExpirationSeconds: 3600, minBaseUnits: '10000', maxBaseUnits: '2000000' } },
        BTC_LBTC: {
          payReq: { minExpirationSeconds: '1800', minBaseUnits: '5000', maxBaseUnits: '99999999999999999999' },
        },
      },
      OFFERED,
    );
    assert.deepEqual(Object.keys(parsed), ['ETH_LBTC', 'BTC_LBTC']);
    assert.deepEqual(parsed.ETH_LBTC, payReq(3600n, 10000n, 2000000n));
    assert.deepEqual(parsed.BTC_LBTC, payReq(1800n, 5000n, 99999999999999999999n));
  });

  test('an empty configuration serves no market', () => {
    assert.deepEqual(parseActiveConfiguration({}, OFFERED), {});
  });

  test('InvalidOrMissingActiveConfigurationFields for anything else', () => {
    const good = { minExpirationSeconds: '60', minBaseUnits: '1', maxBaseUnits: '2' };
    const cases: unknown[] = [
      null,
      [],
      'BTC_LBTC',
      { SBTC_LSBTC: { payReq: good } },
      { NOPE: { payReq: good } },
      { BTC_LBTC: { payReq: good }, btc_lbtc: { payReq: good } },
      { BTC_LBTC: good },
      { BTC_LBTC: { payReq: { ...good, minBaseUnits: '3' } } },
      { BTC_LBTC: { payReq: { ...good, minExpirationSeconds: undefined } } },
      { BTC_LBTC: { payReq: { ...good, minBaseUnits: -1 } } },
      { BTC_LBTC: { payReq: { ...good, minBaseUnits: 1.5 } } },
      { BTC_LBTC: { payReq: { ...good, maxBaseUnits: 2 ** 60 } } },
      { BTC_LBTC: { payReq: { ...good, maxBaseUnits: '1e3' } } },
      { BTC_LBTC: { payReq: { ...good, maxBaseUnits: '02' } } },
    ];
    for (const payload of cases) {
      assert.equal(refusal(payload), 'InvalidOrMissingActiveConfigurationFields', JSON.stringify(payload));
    }
  });
});
