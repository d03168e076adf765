/**
 * A Bitcoin order's rescue file, and its refund from that file alone. The refund details otherwise come from the
 * service; a wallet that keeps this file, written before it pays, refunds the HTLC after its timelock with nothing
 * but the file, its refund key and any Esplora, should the service be gone, lie, or forget the order.
 */
import type { Network } from '../domain/markets.js';
import type { FundingDetailsView } from '../wire/response-shapes.js';
import { checkBitcoinFunding, readHtlc, type BitcoinFundingExpectations } from './bitcoin-funding-address.js';
import { equalBytes, isNetwork, refundKeyHashOfAddress } from './bitcoin-htlc.js';
import { htlcRefundPsbt, type BitcoinRefund } from './bitcoin-refund-psbt.js';
import type { EsploraOutput } from './bitcoin-rescue-outputs.js';
import { isRecord } from './shape-check.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

/**
 * All a refund needs, as JSON: the HTLC (its address and redeem script), where its refund branch pays, and from
 * which height. No secret: the refund key stays in the wallet, and the file gives nobody else anything to spend.
 */
export interface BitcoinRescueFile {
  readonly orderId: string;
  readonly network: Network;
  /** The HTLC's address, the one paid. */
  readonly address: string;
  /** Hex. */
  readonly redeemScript: string;
  /** P2WPKH or P2PKH: the refund branch pays its key, and the refund goes back to it. */
  readonly refundAddress: string;
  readonly refundableAtBlockHeight: number;
}

/** How to refund from a rescue file: the HTLC's outputs and the fee. */
export interface BitcoinRescueRefundOptions {
  /** The HTLC address's unspent outputs, as any Esplora lists them (`GET /address/:address/utxo`, `esploraOutputs`). */
  readonly outputs: readonly EsploraOutput[];
  /** Satoshis per virtual byte. */
  readonly feeTokensPerVirtualByte: number;
  /** For a legacy P2SH HTLC only: the funding transactions (hex) by id (`esploraTransactionsHex`). */
  readonly fundingTransactionsHex?: Readonly<Record<string, string>>;
}

/**
 * The rescue file of a Bitcoin quote, written after the quote is checked as `bitcoinFundingAddress` checks it
 * (same expectations; throws `UnsafeFundingDetails` as it does): a file of an unchecked quote would rescue nothing.
 * A wallet keeps it (offers it to save) before it pays: if the service is gone when the timelock passes, the file
 * is all `bitcoinRescueRefund` needs.
 *
 * @example
 * const expectations = { paymentHash, refundAddress, network: 'mainnet', currentBlockHeight } as const;
 * const { address, amount } = bitcoinFundingAddress(quote, expectations);
 * const rescue = bitcoinRescueFile(quote, expectations);
 * save(`lnswap-rescue-${rescue.orderId}.json`, JSON.stringify(rescue, null, 2)); // before paying
 * await wallet.pay(address, amount);
 */
export function bitcoinRescueFile(
  quote: FundingDetailsView,
  expectations: BitcoinFundingExpectations,
): BitcoinRescueFile {
  const checked = checkBitcoinFunding(quote, expectations);
  return {
    orderId: checked.orderId,
    network: checked.network,
    address: checked.address,
    redeemScript: checked.redeemScript,
    refundAddress: checked.refundAddress,
    refundableAtBlockHeight: checked.refundableAtBlockHeight,
  };
}

/**
 * The refund of an HTLC from its rescue file, as an unsigned PSBT: the file is checked again first (it may have
 * been edited since: the address must be the redeem script's, the script lnswap's template, its refund branch the
 * refund address's key and its timelock the file's height), then every output listed goes back to the refund
 * address, locked to the refund height. The wallet signs with its refund key, `finalizeBitcoinRefund` gives the
 * transaction, and any node takes it once its chain has reached `refundableAtBlockHeight`.
 *
 * @example
 * const rescue = JSON.parse(savedFile);
 * const outputs = await esploraOutputs('https://blockstream.info/api', rescue.address);
 * const { psbt } = bitcoinRescueRefund(rescue, { outputs, feeTokensPerVirtualByte: 5 });
 * psbt.signAllInputs(refundKey);
 * await fetch('https://blockstream.info/api/tx', { method: 'POST', body: finalizeBitcoinRefund(psbt) });
 */
export function bitcoinRescueRefund(rescue: BitcoinRescueFile, options: BitcoinRescueRefundOptions): BitcoinRefund {
  const {
    network,
    address,
    redeemScript: redeemScriptHex,
    refundAddress,
    refundableAtBlockHeight,
  } = readRescue(rescue);
  const refundKeyHash = refundKeyHashOfAddress(refundAddress, network);
  if (refundKeyHash === undefined) {
    throw new UnsafeFundingDetails(
      'UnusableRefundAddress',
      `the rescue file's refund address is not a P2WPKH or P2PKH address of ${network}`,
    );
  }
  const { redeemScript, parts, form } = readHtlc(redeemScriptHex, address, network);
  if (!equalBytes(parts.refundPublicKeyHash, refundKeyHash)) {
    throw new UnsafeFundingDetails(
      'WrongRefundKey',
      "the HTLC's refund branch pays another key than the refund address's",
    );
  }
  if (parts.refundableAtBlockHeight !== refundableAtBlockHeight) {
    throw new UnsafeFundingDetails(
      'WrongTimelock',
      `the HTLC's refund opens at block ${parts.refundableAtBlockHeight}, not at the file's ${refundableAtBlockHeight}`,
    );
  }
  if (!isRecord(options)) throw new UnsafeFundingDetails('MalformedExpectations', 'no outputs or fee rate given');
  return htlcRefundPsbt({
    network,
    redeemScript,
    form,
    refundAddress,
    lockTime: refundableAtBlockHeight,
    feeTokensPerVirtualByte: options.feeTokensPerVirtualByte,
    outputs: readOutputs(options.outputs),
    fundingTransactionsHex: options.fundingTransactionsHex,
  });
}

function readRescue(rescue: unknown): BitcoinRescueFile {
  if (!isRecord(rescue)) throw new UnsafeFundingDetails('MalformedRescueFile', 'the rescue file is not an object');
  const { orderId, network, address, redeemScript, refundAddress, refundableAtBlockHeight } = rescue;
  const texts = [orderId, address, redeemScript, refundAddress];
  if (!texts.every((text) => typeof text === 'string') || !Number.isSafeInteger(refundableAtBlockHeight)) {
    throw new UnsafeFundingDetails('MalformedRescueFile', 'the rescue file lacks a field or holds one of another type');
  }
  if (!isNetwork(network)) throw new UnsafeFundingDetails('MalformedRescueFile', 'the rescue file names no network');
  return rescue as unknown as BitcoinRescueFile;
}

/** Esplora's outputs as the refund takes them; anything but a list of outputs is refused. */
function readOutputs(outputs: unknown): { txId: string; index: number; tokens: bigint }[] {
  if (!Array.isArray(outputs)) throw new UnsafeFundingDetails('MalformedOutputs', 'the outputs are not a list');
  return outputs.map((output: unknown) => {
    if (!isRecord(output) || typeof output.txid !== 'string' || !Number.isSafeInteger(output.vout)) {
      throw new UnsafeFundingDetails('MalformedOutputs', 'an output has no transaction id or index');
    }
    if (!Number.isSafeInteger(output.value)) {
      throw new UnsafeFundingDetails('MalformedOutputs', `output ${output.txid} has no value in satoshis`);
    }
    return { txId: output.txid, index: output.vout as number, tokens: BigInt(output.value as number) };
  });
}
