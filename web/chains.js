// The on-chain assets the service knows (src/domain/markets.ts's ONCHAIN_ASSETS; the browser test checks the
// two agree): which chain a ticker settles on, its network, and its decimals.

export const ONCHAIN_ASSETS = [
  { ticker: 'BTC', chain: 'bitcoin', network: 'mainnet', decimals: 8 },
  { ticker: 'ETH', chain: 'ethereum', network: 'mainnet', decimals: 18 },
  { ticker: 'TBTC', chain: 'bitcoin', network: 'testnet', decimals: 8 },
  { ticker: 'KETH', chain: 'ethereum', network: 'testnet', decimals: 18 },
  { ticker: 'SBTC', chain: 'bitcoin', network: 'simnet', decimals: 8 },
  { ticker: 'SETH', chain: 'ethereum', network: 'simnet', decimals: 18 },
];

export function assetOf(ticker) {
  const asset = ONCHAIN_ASSETS.find((candidate) => candidate.ticker === ticker);
  if (asset === undefined) throw new Error(`unknown on-chain ticker ${ticker}`);
  return asset;
}
