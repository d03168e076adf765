/**
 * What a wallet derives of a Bitcoin HTLC by itself, shared by the funding check, the rescue file and the refund
 * PSBT: the networks, the address of each form the service accepts, the key hash a refund address stands for,
 * and hex. Browser-safe (bitcoinjs-lib only), and never throws on what a service or a file handed in: undefined
 * answers what cannot be read.
 */
import { address as bitcoinAddress, networks, payments, type Network as BitcoinJsNetwork } from 'bitcoinjs-lib';
import { isHexBytes } from '../domain/hex.js';
import { NETWORKS, type Network } from '../domain/markets.js';

/** How the HTLC output holds its redeem script; lnswap's providers quote P2WSH unless they ask for another. */
export type HtlcForm = 'p2wsh' | 'p2sh-p2wsh' | 'p2sh';

export const HTLC_FORMS: readonly HtlcForm[] = ['p2wsh', 'p2sh-p2wsh', 'p2sh'];

export const BITCOIN_NETWORKS: Readonly<Record<Network, BitcoinJsNetwork>> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  simnet: networks.regtest,
};

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (NETWORKS as readonly string[]).includes(value);
}

/** The output script paying the HTLC of `redeemScript` in `form`. */
export function htlcOutputScript(redeemScript: Uint8Array, form: HtlcForm): Uint8Array {
  return paymentOf(redeemScript, form, networks.bitcoin).output!;
}

/** The address of the HTLC of `redeemScript` in `form` on `network` (bech32 in lower case). */
export function htlcAddress(redeemScript: Uint8Array, form: HtlcForm, network: Network): string {
  return paymentOf(redeemScript, form, BITCOIN_NETWORKS[network]).address!;
}

/** The form in which `address` on `network` pays the HTLC of `redeemScript`, undefined when it does not. */
export function formOfAddress(redeemScript: Uint8Array, address: unknown, network: Network): HtlcForm | undefined {
  const paid = outputScriptOfAddress(address, network);
  if (paid === undefined) return undefined;
  return HTLC_FORMS.find((form) => equalBytes(htlcOutputScript(redeemScript, form), paid));
}

/**
 * The output script an address of `network` pays, for the kinds a swap uses (P2PKH, P2SH, P2WPKH, P2WSH), bech32
 * in either case; undefined for anything else: another network's address, taproot, a later witness version,
 * garbage, a value that is no string.
 */
export function outputScriptOfAddress(address: unknown, network: Network): Uint8Array | undefined {
  const decoded = decodeAddress(address, network);
  if (decoded === undefined) return undefined;
  const { kind, hash } = decoded;
  const payment =
    kind === 'p2pkh'
      ? payments.p2pkh({ hash })
      : kind === 'p2sh'
        ? payments.p2sh({ hash })
        : kind === 'p2wpkh'
          ? payments.p2wpkh({ hash })
          : payments.p2wsh({ hash });
  return payment.output;
}

/**
 * The 20-byte key hash a P2WPKH or P2PKH address of `network` pays: the only kinds whose key the HTLC's refund
 * branch (OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY ... OP_CHECKSIG) can name. Undefined for any other address.
 */
export function refundKeyHashOfAddress(address: unknown, network: Network): Uint8Array | undefined {
  const decoded = decodeAddress(address, network);
  return decoded?.kind === 'p2pkh' || decoded?.kind === 'p2wpkh' ? decoded.hash : undefined;
}

interface DecodedAddress {
  readonly kind: 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh';
  readonly hash: Uint8Array;
}

function decodeAddress(address: unknown, network: Network): DecodedAddress | undefined {
  if (typeof address !== 'string') return undefined;
  const { bech32, pubKeyHash, scriptHash } = BITCOIN_NETWORKS[network];
  const base58 = attempt(() => bitcoinAddress.fromBase58Check(address));
  if (base58 !== undefined) {
    if (base58.version === pubKeyHash) return { kind: 'p2pkh', hash: base58.hash };
    return base58.version === scriptHash ? { kind: 'p2sh', hash: base58.hash } : undefined;
  }
  const segwit = attempt(() => bitcoinAddress.fromBech32(address));
  if (segwit === undefined || segwit.prefix !== bech32 || segwit.version !== 0) return undefined;
  if (segwit.data.length === 20) return { kind: 'p2wpkh', hash: segwit.data };
  return segwit.data.length === 32 ? { kind: 'p2wsh', hash: segwit.data } : undefined;
}

function paymentOf(redeemScript: Uint8Array, form: HtlcForm, network: BitcoinJsNetwork): payments.Payment {
  const redeem = { output: redeemScript, network };
  if (form === 'p2sh') return payments.p2sh({ redeem, network });
  if (form === 'p2wsh') return payments.p2wsh({ redeem, network });
  return payments.p2sh({ redeem: payments.p2wsh({ redeem, network }), network });
}

/** Whole bytes of hex, either case, at least one; undefined for anything else. */
export function hexToBytes(hex: unknown): Uint8Array | undefined {
  if (typeof hex !== 'string' || !isHexBytes(hex)) return undefined;
  return Uint8Array.from(hex.match(/../gu)!, (byte) => parseInt(byte, 16));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** A whole number, 0 or more, that a JS number holds exactly: a block height, an index, satoshis. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** What `read` answers, or undefined when it throws: for the libraries' decoders, which throw on garbage. */
export function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
