// The Bitcoin rescue file the page offers before the person pays: the HTLC's address and script, the refund address
// and the refund height, all a wallet needs to take the coins back after the timelock if the service is gone.
import { bitcoinRescueFile } from '../../src/client/index.js';
import { h } from '../dom.js';
import { BITCOIN_MAX_REFUND_DELAY_BLOCKS } from './funding-checks.js';

/**
 * The rescue file of `quote` as `{ name, text }` (`rescue-<orderId>.json`, JSON), written by the client library once
 * the quote passes the same check as the address to pay, against the same `expectations`.
 */
export function rescueFile(quote, expectations) {
  const record = bitcoinRescueFile(quote, { ...expectations, maxRefundDelayBlocks: BITCOIN_MAX_REFUND_DELAY_BLOCKS });
  return { name: `rescue-${record.orderId}.json`, text: `${JSON.stringify(record, null, 2)}\n` };
}

/** What the page shows before the address: why to keep the file, and the link that saves it. */
export function rescueFileOffer(quote, expectations, refundableAtBlockHeight) {
  const file = rescueFile(quote, expectations);
  const href = URL.createObjectURL(new Blob([file.text], { type: 'application/json' }));
  return [
    h(
      'p',
      {},
      `Save this file before you pay. If the payment fails and this service is gone, the file and your refund key are ` +
        `all your wallet needs to take the bitcoin back from block ${refundableAtBlockHeight}; it holds no secret.`,
    ),
    h('a', { href, download: file.name, class: 'rescue-file' }, 'Download the rescue file'),
  ];
}
