/**
 * How Esplora and Bitcoin Core spell blocks and transactions in JSON, as their documentation shows them
 * (Esplora's API.md; Bitcoin Core's RPC help for getblock, getrawtransaction).
 */
import { script, type Transaction } from 'bitcoinjs-lib';
import type { BitcoinTestChain, ChainBlock, Located } from './chain.js';

type OutputKind = 'p2pkh' | 'p2sh' | 'v0_p2wpkh' | 'v0_p2wsh' | 'v1_p2tr' | 'op_return' | 'unknown';

function outputKind(outputScript: Uint8Array): OutputKind {
  const bytes = Buffer.from(outputScript);
  if (bytes.length === 25 && bytes[0] === 0x76 && bytes[1] === 0xa9 && bytes[2] === 0x14) return 'p2pkh';
  if (bytes.length === 23 && bytes[0] === 0xa9 && bytes[1] === 0x14 && bytes[22] === 0x87) return 'p2sh';
  if (bytes.length === 22 && bytes[0] === 0x00 && bytes[1] === 0x14) return 'v0_p2wpkh';
  if (bytes.length === 34 && bytes[0] === 0x00 && bytes[1] === 0x20) return 'v0_p2wsh';
  if (bytes.length === 34 && bytes[0] === 0x51 && bytes[1] === 0x20) return 'v1_p2tr';
  if (bytes[0] === 0x6a) return 'op_return';
  return 'unknown';
}

const CORE_TYPES: Record<OutputKind, string> = {
  p2pkh: 'pubkeyhash',
  p2sh: 'scripthash',
  v0_p2wpkh: 'witness_v0_keyhash',
  v0_p2wsh: 'witness_v0_scripthash',
  v1_p2tr: 'witness_v1_taproot',
  op_return: 'nulldata',
  unknown: 'nonstandard',
};

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const asm = (bytes: Uint8Array): string => {
  try {
    return script.toASM(Buffer.from(bytes));
  } catch {
    return '';
  }
};

function esploraOutput(chain: BitcoinTestChain, output: Transaction['outs'][number]) {
  const address = chain.addressOf(output.script);
  return {
    scriptpubkey: hex(output.script),
    scriptpubkey_asm: asm(output.script),
    scriptpubkey_type: outputKind(output.script),
    ...(address === undefined ? {} : { scriptpubkey_address: address }),
    value: Number(output.value),
  };
}

export function esploraStatus(block: ChainBlock | undefined) {
  return block === undefined
    ? { confirmed: false }
    : { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.block.timestamp };
}

export function esploraTx(chain: BitcoinTestChain, { tx, block }: Located) {
  const coinbase = tx.isCoinbase();
  const vin = tx.ins.map((input) => {
    const prevout = coinbase ? undefined : chain.prevout(input);
    return {
      txid: Buffer.from(input.hash).reverse().toString('hex'),
      vout: input.index,
      prevout: prevout === undefined ? null : esploraOutput(chain, prevout),
      scriptsig: hex(input.script),
      scriptsig_asm: asm(input.script),
      ...(input.witness.length === 0 ? {} : { witness: input.witness.map(hex) }),
      is_coinbase: coinbase,
      sequence: input.sequence,
    };
  });
  const inValue = vin.reduce((sum, input) => sum + (input.prevout?.value ?? 0), 0);
  const outValue = tx.outs.reduce((sum, output) => sum + Number(output.value), 0);
  return {
    txid: tx.getId(),
    version: tx.version,
    locktime: tx.locktime,
    vin,
    vout: tx.outs.map((output) => esploraOutput(chain, output)),
    size: tx.byteLength(),
    weight: tx.weight(),
    fee: coinbase ? 0 : inValue - outValue,
    status: esploraStatus(block),
  };
}

export function esploraBlock(chain: BitcoinTestChain, block: ChainBlock) {
  const header = block.block;
  return {
    id: block.hash,
    height: block.height,
    version: header.version,
    timestamp: header.timestamp,
    tx_count: block.txs.length,
    size: header.byteLength(),
    weight: block.txs.reduce((sum, tx) => sum + tx.weight(), 320),
    merkle_root: Buffer.from(header.merkleRoot ?? [])
      .reverse()
      .toString('hex'),
    previousblockhash: chain.blockAtHeight(block.height - 1)?.hash ?? null,
    mediantime: header.timestamp,
    nonce: header.nonce,
    bits: header.bits,
    difficulty: 4.656542373906925e-10,
  };
}

/** Bitcoin Core speaks amounts in BTC as JSON numbers with 8 decimals. */
function btc(satoshis: bigint): number {
  return Number(satoshis) / 1e8;
}

export function coreTx(chain: BitcoinTestChain, { tx, block }: Located) {
  const coinbase = tx.isCoinbase();
  return {
    txid: tx.getId(),
    hash: Buffer.from(tx.getHash(true)).reverse().toString('hex'),
    version: tx.version,
    size: tx.byteLength(),
    vsize: tx.virtualSize(),
    weight: tx.weight(),
    locktime: tx.locktime,
    vin: tx.ins.map((input) => ({
      ...(coinbase
        ? { coinbase: hex(input.script) }
        : {
            txid: Buffer.from(input.hash).reverse().toString('hex'),
            vout: input.index,
            scriptSig: { asm: asm(input.script), hex: hex(input.script) },
          }),
      ...(input.witness.length === 0 ? {} : { txinwitness: input.witness.map(hex) }),
      sequence: input.sequence,
    })),
    vout: tx.outs.map((output, n) => {
      const address = chain.addressOf(output.script);
      return {
        value: btc(output.value),
        n,
        scriptPubKey: {
          asm: asm(output.script),
          hex: hex(output.script),
          ...(address === undefined ? {} : { address }),
          type: CORE_TYPES[outputKind(output.script)],
        },
      };
    }),
    hex: tx.toHex(),
    ...(block === undefined
      ? {}
      : {
          blockhash: block.hash,
          confirmations: chain.tipHeight - block.height + 1,
          time: block.block.timestamp,
          blocktime: block.block.timestamp,
        }),
  };
}

export function coreBlock(chain: BitcoinTestChain, block: ChainBlock, verbosity: number) {
  const header = block.block;
  const next = chain.blockAtHeight(block.height + 1);
  const previous = chain.blockAtHeight(block.height - 1);
  return {
    hash: block.hash,
    confirmations: chain.tipHeight - block.height + 1,
    height: block.height,
    version: header.version,
    merkleroot: Buffer.from(header.merkleRoot ?? [])
      .reverse()
      .toString('hex'),
    time: header.timestamp,
    mediantime: header.timestamp,
    nonce: header.nonce,
    bits: header.bits.toString(16),
    nTx: block.txs.length,
    ...(previous === undefined ? {} : { previousblockhash: previous.hash }),
    ...(next === undefined ? {} : { nextblockhash: next.hash }),
    tx:
      verbosity >= 2
        ? block.txs.map((tx, index) => {
            const {
              blockhash: _hash,
              confirmations: _c,
              time: _t,
              blocktime: _bt,
              ...inBlock
            } = coreTx(chain, { tx, block, index });
            return inBlock;
          })
        : block.txs.map((tx) => tx.getId()),
  };
}
