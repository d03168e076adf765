/** A gauge of `/metrics` for the Bitcoin chain, undefined when the service does not report it yet. */
function bitcoinGauge(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name}\\{chain="bitcoin"\\} (\\d+)$`, 'm').exec(text);
  return match === null ? undefined : Number(match[1]);
}

/**
 * The last block the service's watcher has stored as processed, from its `/metrics` (the node's tip less the
 * watcher's lag), as an operator's monitoring reads it: the bench's sign that a pass has read a block.
 */
export async function processedHeight(serviceUrl: string): Promise<number | undefined> {
  const response = await fetch(`${serviceUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text.slice(0, 200)}`);
  const tip = bitcoinGauge(text, 'lnswap_chain_tip_height');
  const lag = bitcoinGauge(text, 'lnswap_chain_watcher_lag_blocks');
  return tip === undefined || lag === undefined ? undefined : tip - lag;
}
