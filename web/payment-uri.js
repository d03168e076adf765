// What a wallet scans: a BIP 21 URI for Bitcoin, an EIP-681 contract call for Ethereum, built only from the
// service's funding details, so the QR code says exactly what the page shows beside it.

const FUND_SELECTOR = '0x478820ce';
const MAINNET_CHAIN_ID = 1;

/** A decimal string as an integer of `decimals` places, without floating point. */
function toUnits(decimal, decimals) {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

/** The shortest decimal string of an integer of `decimals` places: no trailing zero or dot. */
function fromUnits(units, decimals) {
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** What is still to pay: the full amount less what FUND transactions brought in (a top-up when partly funded). */
export function amountLeft(amount, amountPaid, decimals) {
  const left = toUnits(amount, decimals) - toUnits(amountPaid, decimals);
  return fromUnits(left > 0n ? left : 0n, decimals);
}

export function bitcoinUri(address, amount) {
  return `bitcoin:${address}?amount=${amount}`;
}

/**
 * `ethereum:CONTRACT@CHAIN/fund?value=WEI&bytes16=ORDER&bytes32=HASH&address=CLAIMER`, read back from the call data; undefined
 * when the data is not a call of fund(bytes16, bytes32, address), rather than a link that would send it elsewhere.
 * Without a known chain id the link names none, and the wallet uses the chain it is on.
 */
export function ethereumUri({ to, value, data }, chainId) {
  const match = new RegExp(`^${FUND_SELECTOR}([0-9a-f]{32})0{32}([0-9a-f]{64})0{24}([0-9a-f]{40})$`, 'i').exec(data);
  // The zero claimer is what an order without one names: the contract refuses it, so there is nothing to pay.
  if (match === null || /^0+$/.test(match[3])) return undefined;
  const chain = chainId === undefined ? '' : `@${chainId}`;
  return `ethereum:${to}${chain}/fund?value=${value}&bytes16=0x${match[1]}&bytes32=0x${match[2]}&address=0x${match[3]}`;
}

/** Ethereum mainnet markets settle on chain 1 whatever node is followed; others only on the followed node's. */
export function ethereumChainId(network, followedChainId) {
  return network === 'mainnet' ? MAINNET_CHAIN_ID : followedChainId;
}
