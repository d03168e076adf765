// One order: its state timeline, how to fund it (with a QR code), its transactions and, once it can be
// refunded, how; on Ethereum, the slot of a funding address the user gives. Reads the read API and the
// tracker's history route; moves come from Live.
import qrcode from '/assets/qrcode.mjs';
import { copyable, formatDuration, getJson, h, plainField, timeElement } from './dom.js';
import { amountLeft, bitcoinUri, ethereumChainId, ethereumUri } from './payment-uri.js';

/** What a slot whose refund the provider signed away says: `refundCooperative` pays the funder, whoever sends it. */
const REFUND_NOW =
  'Refund now: the provider gave this order up. Send this call from any address; the contract pays the funding address.';
const COOPERATIVE_CALL_LABEL = 'Refund call data (refundCooperative), sent from any address';

function isCooperative(refund) {
  return refund.type === 'CooperativeRefund';
}

const AWAITING_FUNDS = new Set(['WaitingForFundingTx', 'PartiallyFunded']);
const REFUNDING = new Set([
  'WaitingForRefundTx',
  'AddressBlacklistedWaitingForRefundTx',
  'WaitingForRefundTxConfirmation',
]);

const REASONS = {
  requestQuote: 'Quote accepted',
  fundingSeen: 'Funding seen on chain',
  fundingConfirmed: 'Funding confirmed',
  fundingReorged: 'Funding undone by a reorganisation',
  paymentResult: 'Provider paid the invoice',
  paymentFailedAddressBlacklisted: 'Provider refused the payment: address blacklisted',
  claimSeen: 'Provider claimed with the preimage',
  fundWindowElapsed: 'Fund window closed',
  refundHeightReached: 'Refund height reached',
  refundSeen: 'Refund seen on chain',
  refundConfirmed: 'Refund confirmed',
  refundReorged: 'Refund undone by a reorganisation',
};

const SLOT_REFUSALS = {
  InvalidFunder: 'That is not an Ethereum address (0x and 40 hex digits).',
  SlotNotFound: 'No funding of this order from that address.',
};

function describeCause(cause) {
  if (cause === undefined) return ['Imported: no cause recorded'];
  const parts = [`${REASONS[cause.reason] ?? cause.reason} (${cause.source} ${cause.reason})`];
  if (cause.txId !== undefined) parts.push(h('span', { class: 'hex' }, `tx ${cause.txId}`));
  if (cause.blockHeight !== undefined) parts.push(`block ${cause.blockHeight}`);
  return parts.flatMap((part, index) => (index === 0 ? [part] : [' · ', part]));
}

function shortId(id) {
  return id.slice(0, 8);
}

function qrFigure(uri, label) {
  const code = qrcode(0, 'M');
  code.addData(uri, 'Byte');
  code.make();
  const figure = h('figure', { class: 'qr' });
  // The library's SVG is markup it generates from the module matrix alone: no text of ours is inside it.
  figure.innerHTML = code.createSvgTag({ cellSize: 4, margin: 4, scalable: true, alt: label });
  figure.firstElementChild.setAttribute('role', 'img');
  figure.firstElementChild.setAttribute('aria-label', label);
  figure.append(h('figcaption', {}, 'Scan with a wallet, or copy the fields below.'));
  return figure;
}

export class OrderCard {
  #live;
  #showsFunding;
  #tip;
  #data;
  #countdown;
  #reloading;
  /** The card's parts drawn again on every move and block; the slot form below them is kept, with what is typed in it. */
  #body = h('div', { class: 'order-body' });
  #slotForm;
  #slotResult;
  /** The funding address asked about, and its slot's refund answer (or refusal token), read again on every move. */
  #funder;
  #slot;
  element;

  /**
   * `showsFunding: false` leaves out how to fund the order, for a page that shows the funding it verified itself
   * (the pay page) instead of the service's.
   */
  constructor(orderId, live, { showsFunding = true } = {}) {
    this.orderId = orderId;
    this.#live = live;
    this.#showsFunding = showsFunding;
    this.element = h('article', { class: 'order', 'data-order-id': orderId, 'aria-labelledby': `order-${orderId}` });
    this.element.append(this.#body);
  }

  async load() {
    const [order, funding, history] = await Promise.all([
      getJson(`/api/orders/${this.orderId}`),
      getJson(`/api/orders/${this.orderId}/fundDetails`),
      getJson(`/tracker/orders/${this.orderId}/history`),
    ]);
    const refund = REFUNDING.has(order.state) ? await getJson(`/api/orders/${this.orderId}/refund`) : undefined;
    const { asset } = history;
    if (this.#funder !== undefined) this.#slot = await this.#readSlot(this.#funder);
    const firstLoad = this.#data === undefined;
    this.#data = { order, funding, history, refund, asset };
    const height = history.chainHeight ?? refund?.details.currentBlockHeight;
    if (height !== undefined && (this.#tip === undefined || height > this.#tip)) this.#tip = height;
    const lastSequence = history.states.at(-1)?.sequence ?? 0;
    if (firstLoad) {
      this.#live.followOrder(this.orderId, lastSequence, (event) => this.#moved(event));
      this.#live.followChain(asset.chain, asset.network, (height) => this.#newBlock(height));
    } else {
      this.#live.sawSequence(this.orderId, lastSequence);
    }
    this.#render();
  }

  #moved(event) {
    const badge = this.element.querySelector('.state');
    if (badge !== null) {
      badge.textContent = event.state;
      badge.dataset.state = event.state;
    }
    this.#reload();
  }

  /** Moves can come in bursts: one reload at a time, and one more after it if anything moved meanwhile. */
  #reload() {
    if (this.#reloading !== undefined) {
      this.#reloading.again = true;
      return;
    }
    this.#reloading = { again: false };
    this.load()
      .catch(() =>
        this.element.querySelector('.order-status')?.replaceChildren('Could not refresh: retrying on the next move'),
      )
      .finally(() => {
        const { again } = this.#reloading;
        this.#reloading = undefined;
        if (again) this.#reload();
      });
  }

  #newBlock(height) {
    if (this.#tip !== undefined && height <= this.#tip) return;
    this.#tip = height;
    this.#render();
  }

  #render() {
    const { order, funding, history, refund, asset } = this.#data;
    clearInterval(this.#countdown);
    const titleId = `order-${order.id}`;
    this.element.dataset.state = order.state;
    const sections = [
      h(
        'header',
        { class: 'order-head' },
        h('h2', { id: titleId }, `${order.market} order `, h('span', { class: 'hex' }, shortId(order.id))),
        h('p', { class: 'state', 'data-state': order.state }, order.state),
      ),
      h(
        'dl',
        { class: 'fields' },
        copyable('Order id', order.id),
        plainField('Amount', `${order.amount} ${order.onchainTicker}`),
        plainField('Paid', `${order.amountPaid} ${order.onchainTicker}`),
        plainField('Created', timeElement(order.createdAt)),
        order.paymentPreimage === undefined ? undefined : copyable('Payment preimage', order.paymentPreimage),
      ),
      h('p', { class: 'order-status', role: 'status' }),
      this.#timeline(history),
      this.#showsFunding && AWAITING_FUNDS.has(order.state) ? this.#funding(order, funding, history, asset) : undefined,
      this.#transactions(history),
      refund === undefined ? undefined : this.#refund(refund, order),
    ];
    this.#body.replaceChildren(...sections.filter((section) => section !== undefined));
    if (asset.chain === 'ethereum' && order.state !== 'WaitingForFundingTx') this.#showSlotForm(order);
  }

  /**
   * The contract refunds each funding account's slot on its own, and the order's figures leave out other people's
   * small slots: a funder sees its own slot by giving the address it funded from.
   */
  #showSlotForm(order) {
    if (this.#slotForm === undefined) {
      const inputId = `funder-${order.id}`;
      const input = h('input', {
        id: inputId,
        name: 'funder',
        type: 'text',
        required: true,
        spellcheck: 'false',
        autocomplete: 'off',
        autocapitalize: 'off',
        placeholder: '0x…',
      });
      const form = h(
        'form',
        { class: 'slot-lookup' },
        h('label', { for: inputId }, 'Your funding address'),
        input,
        h('button', { type: 'submit' }, 'Show my slot'),
      );
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        this.#askSlot(input.value.trim());
      });
      this.#slotResult = h('div', { class: 'slot-result', role: 'status' });
      this.#slotForm = h(
        'section',
        { class: 'slot', 'aria-label': 'Your slot' },
        h('h3', {}, 'Your slot'),
        h('p', { class: 'hint' }, 'Each funding account has its own slot in the swap contract, refunded on its own.'),
        form,
        this.#slotResult,
      );
      this.element.append(this.#slotForm);
    }
    this.#slotResult.replaceChildren(...this.#slotView(order));
  }

  #askSlot(funder) {
    this.#funder = funder;
    this.#readSlot(funder).then((slot) => {
      this.#slot = slot;
      this.#render();
    });
  }

  async #readSlot(funder) {
    try {
      return { refund: await getJson(`/api/orders/${this.orderId}/refund?funder=${encodeURIComponent(funder)}`) };
    } catch (error) {
      return { refusal: error.token ?? 'unreachable' };
    }
  }

  #slotView(order) {
    if (this.#slot === undefined) return [];
    const { refund, refusal } = this.#slot;
    if (refund === undefined) return [h('p', {}, SLOT_REFUSALS[refusal] ?? `Could not read the slot (${refusal}).`)];
    const empty = /^0(\.0*)?$/.test(refund.refundableBalance);
    return [
      h(
        'p',
        { class: 'slot-when', 'data-blocks-remaining': this.#remaining(refund) },
        empty ? 'Nothing is left in this slot.' : this.#slotWhen(refund),
      ),
      h(
        'dl',
        { class: 'fields' },
        plainField('Refundable balance of your slot', `${refund.refundableBalance} ${order.onchainTicker}`),
        copyable('Contract (to), for your slot', refund.details.to),
        isCooperative(refund)
          ? copyable(COOPERATIVE_CALL_LABEL, refund.details.data)
          : copyable('Refund call data, sent from your address', refund.details.data),
      ),
    ];
  }

  #remaining(refund) {
    if (refund.refundableAtBlockHeight === undefined) return undefined;
    return this.#tip === undefined ? refund.blocksRemaining : Math.max(0, refund.refundableAtBlockHeight - this.#tip);
  }

  #slotWhen(refund) {
    if (isCooperative(refund)) return REFUND_NOW;
    return this.#remaining(refund) === undefined ? 'The operator refunds this slot.' : this.#refundableIn(refund);
  }

  #when(refund, order) {
    if (order.state === 'WaitingForRefundTxConfirmation') {
      return 'The refund transaction is sent; it counts once confirmed.';
    }
    if (isCooperative(refund)) return REFUND_NOW;
    return this.#remaining(refund) === undefined ? 'The operator started this refund.' : this.#refundableIn(refund);
  }

  #refundableIn(refund) {
    const remaining = this.#remaining(refund);
    if (remaining === 0) return `Refundable now (from block ${refund.refundableAtBlockHeight}).`;
    return `Refundable in ${remaining} block${remaining === 1 ? '' : 's'}, at block ${refund.refundableAtBlockHeight}.`;
  }

  #timeline(history) {
    return h(
      'section',
      { class: 'timeline', 'aria-label': 'States' },
      h('h3', {}, 'States'),
      h(
        'ol',
        {},
        history.states.map((step, index) =>
          h(
            'li',
            { 'data-state': step.state, 'aria-current': index === history.states.length - 1 ? 'step' : undefined },
            h('span', { class: 'step-state' }, step.state),
            ' ',
            timeElement(step.at),
            h('span', { class: 'step-cause' }, describeCause(step.cause)),
          ),
        ),
      ),
    );
  }

  #funding(order, funding, history, asset) {
    const { details } = funding;
    const toPay = amountLeft(order.amount, order.amountPaid, asset.decimals);
    const countdown = h('strong', { class: 'countdown' });
    const tick = () => {
      const left = funding.expiryTimestampMs - Date.now();
      countdown.textContent = left > 0 ? `${formatDuration(left)} left to fund` : 'The fund window has closed';
    };
    tick();
    this.#countdown = setInterval(tick, 1000);
    const expiry = new Date(funding.expiryTimestampMs).toISOString();
    const head = [h('h3', {}, 'Fund it'), h('p', {}, countdown, ' (until ', timeElement(expiry), ')')];

    if (details.unsignedApprovalTx !== undefined) return this.#tokenFunding(order, details, head);
    if (details.unsignedFundingTx !== undefined) {
      const tx = details.unsignedFundingTx;
      const uri = ethereumUri(tx, ethereumChainId(asset.network, history.ethereumChainId));
      return h(
        'section',
        { class: 'funding', 'aria-label': 'Funding' },
        head,
        h(
          'p',
          {},
          `Send one transaction calling the swap contract, with exactly this value and data (${order.amount} ${order.onchainTicker}).`,
        ),
        uri === undefined ? undefined : qrFigure(uri, `QR code of the payment link ${uri}`),
        h(
          'dl',
          { class: 'fields' },
          copyable('To', tx.to),
          copyable('Value (wei)', tx.value),
          copyable('Data', tx.data),
          uri === undefined ? undefined : copyable('Payment link', uri),
        ),
      );
    }
    const uri = bitcoinUri(details.payToAddress, toPay);
    return h(
      'section',
      { class: 'funding', 'aria-label': 'Funding' },
      head,
      h('p', {}, `Send ${toPay} ${order.onchainTicker} to the swap's address.`),
      qrFigure(uri, `QR code of the payment link ${uri}`),
      h(
        'dl',
        { class: 'fields' },
        copyable('Address', details.payToAddress),
        copyable('Amount', toPay),
        copyable('Payment link', uri),
        plainField('Refundable from block', String(details.refundableAtBlockHeight)),
      ),
      h('details', {}, h('summary', {}, 'Redeem script'), h('code', { class: 'value' }, details.redeemScript)),
    );
  }

  /** A token is funded in two transactions from one account: the approval must be mined before the funding call. */
  #tokenFunding(order, details, head) {
    const approval = details.unsignedApprovalTx;
    const fundToken = details.unsignedFundingTx;
    const amount = `${order.amount} ${order.onchainTicker}`;
    return h(
      'section',
      { class: 'funding', 'aria-label': 'Funding' },
      head,
      h('p', {}, `Send two transactions from the same account, in this order, each with value 0.`),
      h(
        'ol',
        { class: 'funding-steps' },
        h(
          'li',
          { 'data-step': 'approve' },
          h('h4', {}, `1. Approve: let the swap contract take ${amount}`),
          h('p', {}, 'Call the token contract. Wait until it is in a block before the second step.'),
          h(
            'dl',
            { class: 'fields' },
            copyable('To (token)', approval.to),
            copyable('Value (wei)', approval.value),
            copyable('Data', approval.data),
          ),
        ),
        h(
          'li',
          { 'data-step': 'fundToken' },
          h('h4', {}, `2. Fund: the swap contract takes ${amount}`),
          h('p', {}, 'Call the swap contract, from the account that approved.'),
          h(
            'dl',
            { class: 'fields' },
            copyable('To (swap contract)', fundToken.to),
            copyable('Value (wei)', fundToken.value),
            copyable('Data', fundToken.data),
          ),
        ),
      ),
    );
  }

  #transactions(history) {
    if (history.transactions.length === 0) return undefined;
    return h(
      'section',
      { class: 'transactions', 'aria-label': 'Transactions' },
      h('h3', {}, 'Transactions'),
      h(
        'ul',
        {},
        history.transactions.map((tx) =>
          h(
            'li',
            { 'data-tx': tx.id },
            h('span', { class: 'tx-type' }, tx.type),
            ' ',
            h('code', { class: 'value' }, tx.id),
            h('span', { class: 'confirmations' }, this.#confirmations(tx)),
          ),
        ),
      ),
    );
  }

  #confirmations(tx) {
    if (tx.blockHeight === undefined) return 'in the mempool, not yet in a block';
    if (this.#tip === undefined || this.#tip < tx.blockHeight) return `in block ${tx.blockHeight}`;
    const confirmations = this.#tip - tx.blockHeight + 1;
    return `in block ${tx.blockHeight}, ${confirmations} confirmation${confirmations === 1 ? '' : 's'}`;
  }

  #refund(refund, order) {
    const { details } = refund;
    const remaining = this.#remaining(refund);
    const when = this.#when(refund, order);
    const fields =
      details.to !== undefined
        ? [
            copyable('Contract (to)', details.to),
            copyable(isCooperative(refund) ? COOPERATIVE_CALL_LABEL : 'Refund call data', details.data),
          ]
        : [
            details.refundAddress === undefined ? undefined : copyable('Refund address', details.refundAddress),
            copyable('Redeem script', details.redeemScript),
            plainField('Fee rate', `${details.feeTokensPerVirtualByte} sat/vB`),
            ...details.utxos.map((utxo, index) =>
              copyable(`Output ${index + 1} (${utxo.tokens} sat)`, `${utxo.txId}:${utxo.index}`),
            ),
          ];
    return h(
      'section',
      { class: 'refund', 'aria-label': 'Refund' },
      h('h3', {}, 'Refund'),
      h('p', { class: 'blocks-remaining', 'data-blocks-remaining': remaining }, when),
      h(
        'dl',
        { class: 'fields' },
        plainField('Refundable balance', `${refund.refundableBalance} ${order.onchainTicker}`),
        fields,
      ),
    );
  }

  dispose() {
    clearInterval(this.#countdown);
  }
}
