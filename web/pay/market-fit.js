// Which markets an invoice can be paid on, from the service's requirements, and why the others cannot.

const OFFCHAIN_NETWORKS = { LBTC: 'mainnet', LTBTC: 'testnet', LSBTC: 'simnet' };

/** `MARKET_LSBTC` settles invoices of the simnet Lightning network. */
export function marketNetwork(market) {
  return OFFCHAIN_NETWORKS[market.slice(market.lastIndexOf('_') + 1)];
}

/**
 * For each market with requirements: `{ market, payReq, misfit }`, `misfit` undefined when the invoice fits, else the
 * first of the checks the service makes on a quote request that the invoice fails, as a sentence.
 */
export function fitMarkets(invoice, requirements, nowMs) {
  return requirements.map(({ market, payReq }) => ({ market, payReq, misfit: misfit(invoice, market, payReq, nowMs) }));
}

function misfit(invoice, market, payReq, nowMs) {
  const network = marketNetwork(market);
  if (network !== invoice.network) {
    return `${market} pays ${network} invoices, and this one is for ${invoice.network}.`;
  }
  const secondsLeft = Math.floor((invoice.expiresAtMs - nowMs) / 1000);
  if (secondsLeft < Number(payReq.minExpirationSeconds)) {
    return `${market} needs an invoice valid for at least ${payReq.minExpirationSeconds} s, and this one expires in ${secondsLeft} s.`;
  }
  // Millisatoshis compared exactly, as the service does.
  if (invoice.millisatoshis < BigInt(payReq.minBaseUnits) * 1000n) {
    return `${market} pays invoices of ${payReq.minBaseUnits} sat or more, and this one asks for ${invoice.satoshis} sat.`;
  }
  if (invoice.millisatoshis > BigInt(payReq.maxBaseUnits) * 1000n) {
    return `${market} pays invoices of at most ${payReq.maxBaseUnits} sat, and this one asks for ${invoice.satoshis} sat.`;
  }
  return undefined;
}
