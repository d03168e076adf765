// The pay page's entry: read an invoice, offer the markets it fits, quote, check the quote with the client library,
// fund from the browser wallet (or show the Bitcoin address and its rescue file), follow the order to Complete, and
// refund from the wallet once the refund height has passed.
import qrcode from '/assets/qrcode.mjs';
import { findMarket } from '../../src/domain/markets.js';
import { copyable, formatDuration, getJson, h, plainField, timeElement } from '../dom.js';
import { OrderCard } from '../order-card.js';
import { bitcoinUri } from '../payment-uri.js';
import { bitcoinOfSatoshis, grouped, pricePerBitcoin } from './amounts.js';
import {
  checkedBitcoinFunding,
  checkedBitcoinRefund,
  checkedEthereumFunding,
  checkedEthereumRefund,
} from './funding-checks.js';
import { readInvoice } from './invoice.js';
import { fitMarkets, marketNetwork } from './market-fit.js';
import { rescueFileOffer } from './rescue-file.js';
import { sentence, unsafeSentence } from './sentences.js';
import { cardFollower, client, ServiceRefusal, ServiceTimeout, UnsafeFundingDetails } from './service.js';
import { Wallet, chainIdFor } from './wallet.js';

const $ = (id) => document.getElementById(id);
/** The refunds the user's own wallet sends: at the refund height, or at once when the provider signed it away. */
const SELF_SENT_REFUNDS = new Set(['TimelockRefund', 'CooperativeRefund']);
/** States in which the funds sit in the contract or HTLC, so a refund is what comes next if nothing else does. */
const REFUNDABLE = new Set(['Funded', 'PartiallyFunded', 'WaitingForRefundTx']);
const FINAL = new Set(['Complete', 'Refunded', 'FundWindowElapsed']);
/** States in which the order still waits for (more of) its funding, so the Bitcoin address is still to be paid. */
const AWAITING_FUNDS = new Set(['WaitingForFundingTx', 'PartiallyFunded']);

const socket = client.userSocket().socket;
const showConnection = (connected) => {
  $('live-status').textContent = connected ? 'Live updates: on' : 'Live updates: reconnecting';
  document.body.dataset.live = connected ? 'on' : 'off';
};
socket.on('connect', () => showConnection(true));
socket.on('disconnect', () => showConnection(false));

/** The one swap the page is making. */
const swap = {
  invoice: undefined,
  quote: undefined,
  market: undefined,
  /** The Bitcoin refund address as the person typed it: the HTLC must refund to it. */
  refundAddress: undefined,
  /** The service's view of the chain's height: the page has no other to check a Bitcoin timelock against. */
  chainHeight: undefined,
  /** The order's last state the page heard. */
  state: undefined,
  chainId: undefined,
  wallet: undefined,
  card: undefined,
  follower: undefined,
};
let countdown;

/**
 * `bitcoin` or `ethereum`, told by the market's name, not by the service: the chains' own markets are known by name;
 * any other is a configured token's, on Ethereum. Undefined before a market is chosen.
 */
function chainOf(market) {
  if (market === undefined) return undefined;
  return findMarket(market)?.onchain.chain === 'bitcoin' ? 'bitcoin' : 'ethereum';
}
const say = (id, text) => ($(id).textContent = text);
/** The sentence for whatever went wrong: the service's token, the client's own failures, the wallet's refusals. */
function refusalOf(error) {
  if (error instanceof ServiceRefusal) return sentence(error.token);
  if (error instanceof ServiceTimeout) return sentence('ServiceTimeout');
  if (error instanceof UnsafeFundingDetails) return unsafeSentence(error.fault, chainOf(swap.market));
  return sentence(error.token ?? 'Unexpected');
}

function showInvoice(invoice) {
  $('invoice-details').replaceChildren(
    plainField('Amount', `${grouped(invoice.satoshis)} sat`),
    plainField('Description', invoice.description === '' ? '(none)' : invoice.description),
    plainField('Network', invoice.network),
    plainField('Expires', timeElement(new Date(invoice.expiresAtMs).toISOString())),
  );
}

async function readPasted(event) {
  event.preventDefault();
  resetSwap();
  const invoice = readInvoice($('invoice').value, Date.now());
  if (invoice.refusal !== undefined) {
    $('invoice-details').replaceChildren();
    say('invoice-status', sentence(invoice.refusal));
    return;
  }
  swap.invoice = invoice;
  showInvoice(invoice);
  say('invoice-status', 'Reading the markets…');
  let requirements;
  try {
    requirements = await client.marketRequirements();
  } catch (error) {
    say('invoice-status', refusalOf(error));
    return;
  }
  const fits = fitMarkets(invoice, requirements, Date.now());
  $('markets').replaceChildren(...fits.map(marketItem));
  const fitting = fits.filter((fit) => fit.misfit === undefined).length;
  say(
    'invoice-status',
    requirements.length === 0
      ? sentence('NoQuoteProvidersAvailable')
      : fitting === 0
        ? 'No market can pay this invoice:'
        : `This invoice can be paid on ${fitting} market${fitting === 1 ? '' : 's'}:`,
  );
}

function marketItem({ market, misfit }) {
  const [onchain] = market.split('_');
  if (misfit !== undefined) return h('li', { class: 'misfit', 'data-market': market }, h('p', {}, misfit));
  const bitcoin = chainOf(market) === 'bitcoin';
  const refundField = bitcoin
    ? h(
        'label',
        {},
        'Your Bitcoin refund address (P2WPKH or P2PKH), in case the payment fails',
        h('input', { name: 'refundAddress', required: true, spellcheck: 'false', autocomplete: 'off' }),
      )
    : undefined;
  const form = h(
    'form',
    { class: 'market-quote', 'data-market': market },
    refundField,
    h('button', { type: 'submit' }, `Pay with ${onchain}`),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void requestQuote(market, form.elements.namedItem('refundAddress')?.value);
  });
  return h('li', { class: 'fit', 'data-market': market }, form);
}

async function requestQuote(market, refundAddress) {
  say('quote-status', `Asking the providers of ${market} for a price…`);
  $('quote').hidden = false;
  $('quote-details').replaceChildren();
  let quote;
  try {
    quote = await client.requestQuote({
      market,
      invoice: swap.invoice.invoice,
      ...(refundAddress === undefined ? {} : { refundAddress }),
    });
  } catch (error) {
    say('quote-status', refusalOf(error));
    return;
  }
  Object.assign(swap, { quote, market, refundAddress, state: 'WaitingForFundingTx' });
  const ticker = market.split('_')[0];
  say('quote-status', '');
  say('invoice-status', `Quoted on ${market}.`);
  $('markets').replaceChildren();
  $('quote-details').replaceChildren(
    plainField('You pay', h('strong', { 'data-field': 'amount' }, `${quote.amount} ${ticker}`)),
    plainField('The payee gets', `${grouped(swap.invoice.satoshis)} sat`),
    plainField(
      'Rate',
      `${pricePerBitcoin(quote.amount, swap.invoice.satoshis)} ${ticker} per BTC, provider's fee included`,
    ),
    plainField('Time left to fund', h('span', { id: 'countdown' })),
  );
  startCountdown(quote.expiryTimestampMs);
  const history = await getJson(`/tracker/orders/${quote.orderId}/history`);
  swap.chainHeight = history.chainHeight;
  if (chainOf(market) === 'ethereum') showWalletPayment(history);
  else showBitcoinPayment(ticker);
  followOrder(quote.orderId);
}

function startCountdown(expiryMs) {
  clearInterval(countdown);
  const tick = () => {
    const left = expiryMs - Date.now();
    say('countdown', left > 0 ? formatDuration(left) : 'the time to fund has passed');
    if (left > 0) return;
    clearInterval(countdown);
    // The address is withdrawn once the window has passed: a payment sent now would come too late to count.
    if (chainOf(swap.market) === 'bitcoin' && AWAITING_FUNDS.has(swap.state))
      showBitcoinPayment(swap.market.split('_')[0]);
  };
  tick();
  countdown = setInterval(tick, 1000);
}

/**
 * The address and QR code to pay, only once the client library has rebuilt the HTLC from its script against the
 * invoice and the refund address typed here, with the rescue file offered first; else the sentence saying why not.
 */
function showBitcoinPayment(ticker) {
  $('bitcoin').hidden = false;
  const expectations = bitcoinExpectations(Date.now());
  let funding;
  try {
    funding = checkedBitcoinFunding(swap.quote, expectations);
  } catch (error) {
    $('bitcoin-details').replaceChildren();
    $('bitcoin-qr').replaceChildren();
    say('bitcoin-status', refusalOf(error));
    return;
  }
  if ($('rescue').childElementCount === 0) {
    $('rescue').replaceChildren(...rescueFileOffer(swap.quote, expectations, funding.refundableAtBlockHeight));
  }
  const amount = bitcoinOfSatoshis(funding.amount);
  const uri = bitcoinUri(funding.address, amount);
  const code = qrcode(0, 'M');
  code.addData(uri);
  code.make();
  say('bitcoin-status', '');
  $('bitcoin-details').replaceChildren(
    copyable('Address', funding.address),
    copyable('Amount', amount),
    plainField('Asset', ticker),
    plainField(
      'Refundable from block',
      `${funding.refundableAtBlockHeight} (the chain is at ${swap.chainHeight}, as this service reports it)`,
    ),
  );
  $('bitcoin-qr').replaceChildren(
    h('img', { src: code.createDataURL(4, 8), alt: `QR code of ${uri}`, class: 'qr', 'data-uri': uri }),
  );
}

/** What the page knows of a Bitcoin swap besides the quote, as the client library's checks take it. */
function bitcoinExpectations(now) {
  return {
    paymentHash: swap.invoice.paymentHash,
    refundAddress: swap.refundAddress,
    network: findMarket(swap.market).onchain.network,
    currentBlockHeight: swap.chainHeight,
    now,
  };
}

function showWalletPayment(history) {
  $('wallet').hidden = false;
  swap.chainId = chainIdFor(marketNetwork(swap.market), history.ethereumChainId);
  $('pay-with-wallet').onclick = () => void payWithWallet(swap.chainId);
}

function walletStep(label) {
  const state = h('span', { class: 'tx-state' }, 'waiting for the wallet');
  const item = h('li', { class: 'wallet-step' }, h('span', {}, `${label}: `), state);
  $('wallet-steps').append(item);
  return {
    sent(hash) {
      item.dataset.hash = hash;
      item.append(' ', h('code', { class: 'hex' }, hash));
    },
    progress(text) {
      state.textContent = text;
      item.dataset.state = text;
    },
  };
}

async function connectedWallet(wanted) {
  if (swap.wallet === undefined) {
    const wallet = Wallet.injected();
    await wallet.connect();
    swap.wallet = wallet;
  }
  say('wallet-status', `Connected: ${swap.wallet.account}`);
  await swap.wallet.ensureChain(wanted, (current) =>
    say('wallet-status', `Your wallet is on chain ${current}; this order settles on chain ${wanted}. Please switch.`),
  );
  return swap.wallet;
}

/** Sends `tx` and shows it with its confirmations until it is mined; throws when it reverted. */
async function sendAndConfirm(wallet, label, tx) {
  const step = walletStep(label);
  const hash = await wallet.send(tx);
  step.sent(hash);
  await wallet.confirm(hash, (confirmations) =>
    step.progress(
      confirmations === 0
        ? 'sent, not yet in a block'
        : `${confirmations} confirmation${confirmations === 1 ? '' : 's'}`,
    ),
  );
  return hash;
}

async function payWithWallet(wanted) {
  $('pay-with-wallet').disabled = true;
  try {
    const wallet = await connectedWallet(wanted);
    say('wallet-status', `Connected: ${wallet.account}, chain ${wanted}: checking the swap contract`);
    // Checked before anything is signed, through the wallet's own node: the contract is lnswap's, every transaction
    // goes to it, locked to the invoice's payment hash, and the window is still open.
    const { transactions, contract } = await checkedEthereumFunding(swap.quote, {
      node: wallet.node(),
      paymentHash: swap.invoice.paymentHash,
      clock: () => Date.now(),
    });
    say(
      'wallet-status',
      `Connected: ${wallet.account}, chain ${wanted}; lnswap's swap contract v${contract.version} verified, refundable ${contract.refundDelayBlocks} blocks after funding`,
    );
    // A token's funding call reverts until the contract may take the tokens: the approval is mined first.
    const labels = transactions.length === 2 ? ['Approval', 'Funding'] : ['Funding'];
    for (const [index, transaction] of transactions.entries()) await sendAndConfirm(wallet, labels[index], transaction);
    clearInterval(countdown);
    say('countdown', 'funded');
    $('pay-with-wallet').hidden = true;
    say('wallet-status', 'Funded: the provider now pays the invoice.');
  } catch (error) {
    say('wallet-status', refusalOf(error));
    $('pay-with-wallet').disabled = false;
  }
}

/** The tracker's order card, with the page listening to the same moves for its refund button. */
function followOrder(orderId) {
  const follower = cardFollower(
    (state) => void moved(state),
    (height) => {
      swap.chainHeight = height;
      void refreshRefund();
    },
  );
  swap.follower = follower;
  // The card's funding section shows the service's details as they came: the page shows only what it verified.
  swap.card = new OrderCard(orderId, follower, { showsFunding: false });
  $('order').replaceChildren(swap.card.element);
  void swap.card.load();
}

async function moved(state) {
  swap.state = state;
  if (state === 'Complete') {
    const order = await client.order(swap.quote.orderId);
    $('done').hidden = false;
    $('done').replaceChildren(
      h('h2', {}, 'Paid'),
      h('p', {}, 'The invoice is paid. The preimage below proves it: only the payee could reveal it.'),
      h('dl', { class: 'fields' }, copyable('Proof of payment (preimage)', order.paymentPreimage)),
    );
  }
  if (FINAL.has(state)) clearInterval(countdown);
  if (state === 'FundWindowElapsed') say('wallet-status', sentence('FundWindowElapsed'));
  await refreshRefund(state);
}

async function refreshRefund(knownState) {
  if (swap.quote === undefined) return;
  const orderId = swap.quote.orderId;
  const state = knownState ?? (await client.orderState(orderId));
  if (!REFUNDABLE.has(state)) {
    if (FINAL.has(state)) $('refund').hidden = true;
    return;
  }
  const funder = swap.wallet?.account;
  const refund = await client.refund(orderId, funder).catch(() => undefined);
  if (refund === undefined || !SELF_SENT_REFUNDS.has(refund.type)) return;
  $('refund').hidden = false;
  // A refund the provider signed away (`refundCooperative`) is sendable at once, whatever the block height.
  const cooperative = refund.type === 'CooperativeRefund';
  const ready = cooperative || (state === 'WaitingForRefundTx' && refund.blocksRemaining === 0);
  say(
    'refund-status',
    cooperative
      ? 'The payment did not go through and the provider released your coins: take them back now.'
      : ready
        ? 'The payment did not go through: take your coins back.'
        : `If the invoice is not paid, you can take your coins back in ${refund.blocksRemaining} block${refund.blocksRemaining === 1 ? '' : 's'}.`,
  );
  $('refund-button').dataset.blocksRemaining = String(refund.blocksRemaining);
  $('refund-button').disabled = !ready;
  $('refund-button').onclick = () => void sendRefund(refund);
}

async function sendRefund(refund) {
  $('refund-button').disabled = true;
  try {
    // The chain is the market's, not the refund details' shape: the service does not say how the page refunds.
    if (chainOf(swap.market) === 'bitcoin') {
      downloadPsbt(refund);
      return;
    }
    const wallet = await connectedWallet(swap.chainId);
    // To the contract verified before it was funded, whatever address the service's refund details name.
    const transaction = checkedEthereumRefund(swap.quote.orderId, refund, {
      funder: wallet.account,
      swapContract: swap.quote.details.unsignedFundingTx.to,
    });
    await sendAndConfirm(wallet, 'Refund', transaction);
    say('refund-status', 'Refund sent: the coins are back in your wallet once it is confirmed.');
  } catch (error) {
    say('refund-status', refusalOf(error));
    $('refund-button').disabled = false;
  }
}

/** A Bitcoin refund is signed by the user's own wallet: the unsigned PSBT (BIP 174), as a file to open in it. */
function downloadPsbt(refund) {
  // Back to the refund address typed here, not the one the service's refund details name.
  const { psbt, amount } = checkedBitcoinRefund(refund, { quote: swap.quote, refundAddress: swap.refundAddress });
  const link = h('a', {
    href: URL.createObjectURL(new Blob([psbt.toBuffer()], { type: 'application/octet-stream' })),
    download: `refund-${swap.quote.orderId}.psbt`,
  });
  link.click();
  say(
    'refund-status',
    `Open the downloaded PSBT in your wallet, sign it with your refund key and broadcast it: ${amount} sat come back.`,
  );
  $('refund-button').disabled = false;
}

function resetSwap() {
  clearInterval(countdown);
  swap.card?.dispose();
  swap.follower?.stop();
  Object.assign(swap, {
    invoice: undefined,
    quote: undefined,
    market: undefined,
    refundAddress: undefined,
    chainHeight: undefined,
    state: undefined,
    chainId: undefined,
    card: undefined,
    follower: undefined,
  });
  for (const id of ['quote', 'wallet', 'bitcoin', 'refund', 'done']) $(id).hidden = true;
  for (const id of ['markets', 'wallet-steps', 'order', 'rescue', 'bitcoin-status', 'bitcoin-details', 'bitcoin-qr'])
    $(id).replaceChildren();
  $('pay-with-wallet').disabled = false;
  $('pay-with-wallet').hidden = false;
}

/** The camera, where the browser reads QR codes itself (BarcodeDetector); elsewhere the button stays hidden. */
function offerScanning() {
  if (!('BarcodeDetector' in window) || navigator.mediaDevices === undefined) return;
  $('scan').hidden = false;
  $('scan').addEventListener('click', () => void scan());
}

async function scan() {
  const video = $('camera');
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } });
    video.hidden = false;
    video.srcObject = stream;
    await video.play();
    const detector = new window.BarcodeDetector({ formats: ['qr_code'] });
    for (;;) {
      const [code] = await detector.detect(video);
      if (code !== undefined) {
        $('invoice').value = code.rawValue;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const track of stream.getTracks()) track.stop();
    video.hidden = true;
    $('invoice-form').requestSubmit();
  } catch {
    video.hidden = true;
    say('invoice-status', 'The camera could not be used here: paste the invoice instead.');
  }
}

$('invoice-form').addEventListener('submit', (event) => void readPasted(event));
offerScanning();
