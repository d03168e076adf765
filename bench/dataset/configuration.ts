import type { StoreConfiguration } from '../../src/store/store.js';

/** The dataset's orders span two years from here; chain heights follow from the time. */
export const DATASET_EPOCH_MS = Date.UTC(2019, 10, 1);
export const DATASET_SPAN_MS = 2 * 365 * 24 * 3600 * 1000;

const BITCOIN_HEIGHT_AT_EPOCH = 601_000;
const BITCOIN_BLOCK_MS = 600_000;
const ETHEREUM_HEIGHT_AT_EPOCH = 8_850_000;
const ETHEREUM_BLOCK_MS = 13_300;

export const SWAP_CONTRACT_ADDRESS = '0xf0398fad8c2aa38c476b010c269158d442730e98';

export function bitcoinHeightAt(timeMs: number): number {
  return BITCOIN_HEIGHT_AT_EPOCH + Math.floor((timeMs - DATASET_EPOCH_MS) / BITCOIN_BLOCK_MS);
}

export function ethereumHeightAt(timeMs: number): number {
  return ETHEREUM_HEIGHT_AT_EPOCH + Math.floor((timeMs - DATASET_EPOCH_MS) / ETHEREUM_BLOCK_MS);
}

/** Two markets, two active providers (one serving both, one only BTC), one inactive: requirements merge for real. */
export function benchConfiguration(): StoreConfiguration {
  const now = DATASET_EPOCH_MS + DATASET_SPAN_MS;
  return {
    markets: ['BTC_LBTC', 'ETH_LBTC'],
    tokens: [],
    chains: {
      bitcoin: { blockHeight: bitcoinHeightAt(now), feeTokensPerVirtualByte: 12 },
      ethereum: { blockHeight: ethereumHeightAt(now), swapContractAddress: SWAP_CONTRACT_ADDRESS },
    },
    providers: [
      {
        id: 'maker-1',
        active: true,
        markets: {
          BTC_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 1000n, maxBaseUnits: 4_294_967n },
          ETH_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 1000n, maxBaseUnits: 4_294_967n },
        },
      },
      {
        id: 'maker-2',
        active: true,
        markets: { BTC_LBTC: { minExpirationSeconds: 1800n, minBaseUnits: 5000n, maxBaseUnits: 16_777_215n } },
      },
      {
        id: 'maker-3',
        active: false,
        markets: { ETH_LBTC: { minExpirationSeconds: 600n, minBaseUnits: 1n, maxBaseUnits: 100_000_000n } },
      },
    ],
  };
}
