// The page's entry: picks the view from the path (`/`, `/orders/:id`, `/markets`), looks orders up, and keeps
// one live connection for every order shown.
import { getJson, h, plainField } from './dom.js';
import { Live } from './live.js';
import { OrderCard } from './order-card.js';
import { sha256Hex } from './sha256.js';

const ORDER_ID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const HASH = /^[0-9a-f]{64}$/i;

const $ = (id) => document.getElementById(id);

/** `10 000 000`: digits in threes, exact for any integer string. */
const wholeDuration = (seconds) =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
const grouped = (integer) => integer.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');

const live = new Live((connected) => {
  $('live-status').textContent = connected ? 'Live updates: on' : 'Live updates: reconnecting';
  document.body.dataset.live = connected ? 'on' : 'off';
});
let cards = [];

function showView(name) {
  $('lookup-view').hidden = name !== 'lookup';
  $('markets-view').hidden = name !== 'markets';
  for (const link of document.querySelectorAll('nav a[data-view]')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function clearOrders() {
  for (const card of cards) card.dispose();
  cards = [];
  live.unfollowAll();
  $('orders').replaceChildren();
}

async function showOrders(orderIds, status) {
  clearOrders();
  cards = orderIds.map((orderId) => new OrderCard(orderId, live));
  $('orders').replaceChildren(...cards.map((card) => card.element));
  await Promise.all(cards.map((card) => card.load()));
  $('lookup-status').textContent = status;
}

function explain(error) {
  const reasons = {
    InvalidOrderId: 'That is not an order id.',
    OrderNotFound: 'No order has that id.',
    InvalidInvoiceHash: 'That is not an invoice hash.',
    ServiceUnavailable: 'The service cannot reach its database just now; try again in a moment.',
  };
  return reasons[error.token] ?? `The lookup failed (${error.message}).`;
}

/** An order id opens that order; a 64-hex string is an invoice hash; anything else is an invoice. */
async function lookUp(query) {
  const text = query.trim();
  if (ORDER_ID.test(text)) {
    history.pushState(null, '', `/orders/${text.toLowerCase()}`);
    return route();
  }
  const invoiceHash = HASH.test(text) ? text.toLowerCase() : sha256Hex(text);
  history.pushState(null, '', `/?invoiceHash=${invoiceHash}`);
  return route();
}

async function showInvoice(invoiceHash) {
  $('lookup-status').textContent = 'Looking up…';
  const orders = await getJson(`/api/orders?invoiceHash=${invoiceHash}`);
  if (orders.length === 0) {
    clearOrders();
    $('lookup-status').textContent = 'No order for this invoice. Check it is the exact invoice you asked a quote for.';
    return;
  }
  await showOrders(
    orders.map((order) => order.id),
    `${orders.length} order${orders.length === 1 ? '' : 's'} for this invoice, newest first.`,
  );
}

async function showMarkets() {
  const [markets, requirements] = await Promise.all([getJson('/api/markets'), getJson('/api/markets/requirements')]);
  const byMarket = new Map(requirements.map((entry) => [entry.market, entry.payReq]));
  $('markets').replaceChildren(
    ...markets.map((market) => {
      const payReq = byMarket.get(market.market);
      return h(
        'li',
        { class: 'market', 'data-market': market.market },
        h('h2', {}, market.market),
        h('p', {}, `Pay ${market.offchainTicker} invoices with ${market.onchainTicker}.`),
        payReq === undefined
          ? h('p', { class: 'unavailable' }, 'No active provider: no quotes now.')
          : h(
              'dl',
              { class: 'fields' },
              plainField('Invoice amount', `${grouped(payReq.minBaseUnits)} to ${grouped(payReq.maxBaseUnits)} sat`),
              plainField('Invoice expiry', `at least ${wholeDuration(Number(payReq.minExpirationSeconds))}`),
            ),
      );
    }),
  );
  $('markets-status').textContent = `${markets.length} market${markets.length === 1 ? '' : 's'}.`;
}

async function route() {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  try {
    if (path === '/markets') {
      clearOrders();
      showView('markets');
      await showMarkets();
      return;
    }
    showView('lookup');
    const orderMatch = /^\/orders\/([^/]+)$/.exec(path);
    if (orderMatch !== null) {
      const orderId = decodeURIComponent(orderMatch[1]);
      $('lookup-query').value = orderId;
      $('lookup-status').textContent = 'Looking up…';
      await showOrders([orderId], 'Following this order.');
      return;
    }
    const invoiceHash = new URLSearchParams(location.search).get('invoiceHash');
    if (invoiceHash !== null) await showInvoice(invoiceHash);
    else clearOrders();
  } catch (error) {
    clearOrders();
    const status = path === '/markets' ? $('markets-status') : $('lookup-status');
    status.textContent = explain(error);
  }
}

$('lookup-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void lookUp($('lookup-query').value);
});
// Enter looks up, as in a search box; Shift+Enter still breaks the line.
$('lookup-query').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('lookup-form').requestSubmit();
  }
});
window.addEventListener('popstate', () => void route());
void route();
