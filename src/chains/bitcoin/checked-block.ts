import { Block, type Transaction } from 'bitcoinjs-lib';

export type WholeBlock = Block & { transactions: Transaction[] };

/**
 * The raw block a node sent, held to its hash: the header must hash to the block asked and the transactions
 * to the header's merkle root and witness commitment, so a node cannot put into a block a transaction that is
 * not there. Throws `bad(detail)` otherwise.
 */
export function checkedBlock(raw: Buffer, hash: string, bad: (detail: string) => Error): WholeBlock {
  let block: Block;
  try {
    block = Block.fromBuffer(raw);
  } catch {
    throw bad('not a block');
  }
  const { transactions } = block;
  if (block.getId() !== hash || transactions === undefined || !block.checkTxRoots()) {
    throw bad(`not block ${hash}, or transactions that do not add up to its merkle root`);
  }
  return Object.assign(block, { transactions });
}
