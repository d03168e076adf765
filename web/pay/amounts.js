// Exact arithmetic on the service's decimal strings: BigInt base units, never floating point.

const SATOSHIS_PER_BITCOIN = 100_000_000n;
const BITCOIN_DECIMALS = 8;

function toUnits(decimal) {
  const [whole, fraction = ''] = decimal.split('.');
  return { units: BigInt(whole + fraction), decimals: fraction.length };
}

function fromUnits(units, decimals) {
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** What one bitcoin costs at this quote, fees included: `amount` for `satoshis`, scaled to 100,000,000 sat. */
export function pricePerBitcoin(amount, satoshis) {
  const { units, decimals } = toUnits(amount);
  return fromUnits((units * SATOSHIS_PER_BITCOIN) / satoshis, decimals);
}

/** `0.000401`: satoshis as the decimal bitcoin a BIP 21 URI and a wallet take, exactly. */
export function bitcoinOfSatoshis(satoshis) {
  return fromUnits(satoshis, BITCOIN_DECIMALS);
}

/** `21 000`: digits in threes. */
export function grouped(integer) {
  return String(integer).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}
