/**
 * ERC-20 token swaps end to end on Anvil: a configured token market (SUSDC_LSBTC, 6 decimals), a provider
 * quoting fundToken over socket.io, a user who sends the approval and the funding call exactly as quoted, and
 * the watcher moving the orders: one to Complete, one to Refunded, one refunded by the operator's admin-refund,
 * read back over HTTP; an attacker's own slot under the same orders moves and takes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex, type Address, type Hex } from 'viem';
import { followOrder, requestQuote, type StateChanged } from '../../examples/user-client.js';
import { formatFixedPoint } from '../../src/domain/amounts.js';
import {
  encodeApproveCalldata,
  encodeClaimCalldata,
  encodeFundTokenCalldata,
  encodeRefundCalldata,
} from '../../src/domain/ethereum.js';
import { decodeInvoice } from '../../src/domain/invoice.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { configuration, PROVIDER_PAYOUT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import {
  addProvider,
  connectClient,
  eventually,
  startTestService,
  succeed,
  type Client,
  type TestService,
} from '../support/ws/harness.js';
import { runCli } from '../support/cli/cli-process.js';
import { BOT_PAY_REQ } from '../support/e2e/bots.js';

const MARKET = 'SUSDC_LSBTC';
const DECIMALS = 6;
const REFUND_DELAY = 30;
const CONFIRMATIONS = 2;
/** The maker's price: 300 base units (0.0003 SUSDC) per satoshi, over the invoice plus a 100-satoshi premium. */
const UNITS_PER_SATOSHI = 300n;
const PREMIUM_SATOSHIS = 100n;
const INVOICE_SATOSHIS = 20_000n;
const AMOUNT = (INVOICE_SATOSHIS + PREMIUM_SATOSHIS) * UNITS_PER_SATOSHI;

interface QuoteRequestEvent {
  orderId: string;
  market: string;
  invoice: string;
  requestExpiryTimestampMs: number;
}

interface TokenQuote {
  orderId: string;
  amount: string;
  details: Record<'unsignedFundingTx' | 'unsignedApprovalTx', { to: Hex; data: Hex; value: string }>;
}

describe('ERC-20 token swaps over socket.io and HTTP on Anvil', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let contract: Address;
  let token: Address;
  let harness: TestService;
  let maker: Client;
  const user = () => node.accounts[1]!;
  const attacker = () => node.accounts[3]!;

  before(async () => {
    node = await startAnvil();
    await node.mine(5);
    contract = await node.deploySwapContract(BigInt(REFUND_DELAY));
    token = await node.deployDemoToken({ symbol: 'SUSDC', decimals: DECIMALS });
    await node.mintDemoToken(token, user().address, 1_000n * AMOUNT);
    await node.mintDemoToken(token, attacker().address, 1_000n * AMOUNT);
    harness = await startTestService('sqlite', {
      configuration: configuration({
        markets: [MARKET],
        tokens: [{ ticker: 'SUSDC', network: 'simnet', address: token.toLowerCase(), decimals: DECIMALS }],
        chains: { ethereum: { blockHeight: 0, swapContractAddress: contract.toLowerCase() } },
        providers: [],
      }),
      engine: { quoteDeadlineMs: 300 },
      ethereum: { rpcUrl: node.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
    });
    maker = await startTokenMaker(
      harness,
      () => contract,
      () => token,
    );
  });
  after(async () => {
    maker?.close();
    await harness?.close();
    await node?.stop();
  });

  async function atTip(): Promise<void> {
    const tip = Number(await node.blockNumber());
    await eventually(
      async () => (await harness.fresh.store.getConfiguration()).chains.ethereum?.blockHeight === tip,
      'the watcher to reach the tip',
    );
  }

  async function getJson<T>(path: string): Promise<T> {
    const response = await fetch(`${harness.service.url}${path}`);
    assert.equal(response.status, 200, path);
    return (await response.json()) as T;
  }

  /** Signs and sends the transaction exactly as given, from `from`, straight to the node; resolves its receipt. */
  async function sendExactly(tx: { to: Hex; data: Hex; value: string }, from = user()) {
    const hash = await node.publicClient.sendRawTransaction({ serializedTransaction: await signExactly(tx, from) });
    return node.publicClient.waitForTransactionReceipt({ hash });
  }

  async function signExactly(tx: { to: Hex; data: Hex; value: string }, from = user()): Promise<Hex> {
    const wallet = node.wallet(from);
    const request = await wallet.prepareTransactionRequest({ to: tx.to, data: tx.data, value: BigInt(tx.value) });
    return wallet.signTransaction(request);
  }

  /** The user's wallet sends its signed transaction through the service, naming the token as the asset. */
  async function broadcastExactly(userSocket: Client, tx: { to: Hex; data: Hex; value: string }) {
    const signedTxHex = await signExactly(tx);
    const { txId } = (await succeed(userSocket, 'broadcastTransaction', { onchainTicker: 'susdc', signedTxHex })) as {
      txId: Hex;
    };
    return node.publicClient.waitForTransactionReceipt({ hash: txId });
  }

  async function quoteForNewInvoice(userSocket: Client) {
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: INVOICE_SATOSHIS, expirySeconds: 7200 });
    const quote = (await requestQuote(userSocket, { market: MARKET, invoice: invoice.invoice })) as TokenQuote;
    return { ...invoice, quote };
  }

  test('a token order to Complete: approve, fundToken, a claim paying the provider in tokens', async () => {
    await atTip();
    const userSocket = await harness.connect('/user/v1');
    const { paymentHash, preimage, quote } = await quoteForNewInvoice(userSocket);
    assert.equal(quote.amount, formatFixedPoint(AMOUNT, DECIMALS));
    assert.equal(quote.amount, '6.030000');
    assert.deepEqual(quote.details, {
      unsignedFundingTx: {
        to: contract.toLowerCase(),
        data: encodeFundTokenCalldata(quote.orderId, paymentHash, PROVIDER_PAYOUT_ADDRESS, token, AMOUNT),
        value: '0',
      },
      unsignedApprovalTx: { to: token.toLowerCase(), data: encodeApproveCalldata(contract, AMOUNT), value: '0' },
    });
    const fundDetails = await getJson<TokenQuote>(`/api/orders/${quote.orderId}/fundDetails`);
    assert.deepEqual(fundDetails.details, quote.details, 'HTTP gives the same two transactions');
    assert.equal(fundDetails.amount, '6.030000');

    const changes: StateChanged[] = [];
    const { settled } = await followOrder(userSocket, quote.orderId, (change) => changes.push(change));

    // An attacker's own slot under the order id, in the real token and the full amount but paying the attacker
    // on claim, is foreign: the order does not move.
    await node.approveToken(token, attacker(), contract, AMOUNT);
    const foreign = await sendExactly(
      {
        to: contract,
        data: encodeFundTokenCalldata(quote.orderId, paymentHash, attacker().address, token, AMOUNT),
        value: '0',
      },
      attacker(),
    );
    assert.equal(foreign.status, 'success');
    await node.mine(CONFIRMATIONS);
    await atTip();
    assert.equal((await getJson<{ state: string }>(`/api/orders/${quote.orderId}`)).state, 'WaitingForFundingTx');

    const userBefore = await node.tokenBalance(token, user().address);
    assert.equal((await broadcastExactly(userSocket, quote.details.unsignedApprovalTx)).status, 'success');
    const funding = await broadcastExactly(userSocket, quote.details.unsignedFundingTx);
    assert.equal(funding.status, 'success');
    assert.equal(userBefore - (await node.tokenBalance(token, user().address)), AMOUNT);
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => changes.some((change) => change.state === 'Funded'), 'Funded');

    // Anyone may send the claim; the contract pays the slot's claimer, the provider's payout address, in tokens.
    const payoutBefore = await node.tokenBalance(token, PROVIDER_PAYOUT_ADDRESS);
    const claim = await sendExactly(
      { to: contract, data: encodeClaimCalldata(quote.orderId, user().address, preimage), value: '0' },
      node.accounts[2]!,
    );
    assert.equal(claim.status, 'success');
    assert.equal((await node.tokenBalance(token, PROVIDER_PAYOUT_ADDRESS)) - payoutBefore, AMOUNT);
    await node.mine(CONFIRMATIONS - 1);
    assert.deepEqual(await settled, { orderId: quote.orderId, state: 'Complete', sequence: 4, preimage });
    assert.deepEqual(
      changes.map((change) => change.state),
      ['WaitingForFundingTxConfirmation', 'Funded', 'Complete'],
    );
    assert.equal(changes[1]?.transactionId, funding.transactionHash);

    const order = await getJson<Record<string, unknown>>(`/api/orders/${quote.orderId}`);
    assert.equal(order.state, 'Complete');
    assert.equal(order.onchainTicker, 'SUSDC');
    assert.equal(order.amount, '6.03');
    assert.equal(order.amountPaid, '6.03', "only the user's matching slot is paid in, not the attacker's");
    assert.equal(order.paymentPreimage, preimage);
  });

  test('a token order to Refunded: nobody pays the invoice, the user takes the tokens back after the refund height', async () => {
    await atTip();
    const userSocket = await harness.connect('/user/v1');
    const { quote } = await quoteForNewInvoice(userSocket);
    const changes: StateChanged[] = [];
    const { settled } = await followOrder(userSocket, quote.orderId, (change) => changes.push(change));
    const userBefore = await node.tokenBalance(token, user().address);
    await broadcastExactly(userSocket, quote.details.unsignedApprovalTx);
    const funding = await broadcastExactly(userSocket, quote.details.unsignedFundingTx);
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => changes.some((change) => change.state === 'Funded'), 'Funded');

    await node.mine(REFUND_DELAY);
    await eventually(() => changes.some((change) => change.state === 'WaitingForRefundTx'), 'WaitingForRefundTx');
    const refund = await getJson<{
      market: string;
      refundableBalance: string;
      details: { to: string; data: Hex };
    }>(`/api/orders/${quote.orderId}/refund`);
    assert.equal(refund.market, MARKET);
    assert.equal(refund.refundableBalance, '6.03');
    assert.deepEqual(refund.details, { to: contract.toLowerCase(), data: encodeRefundCalldata(quote.orderId) });

    // The refund is of the caller's own slot: sent by anyone else it finds nothing to pay, and the user's slot
    // stays whole.
    const stolen = await sendExactly(
      { to: refund.details.to as Hex, data: refund.details.data, value: '0' },
      attacker(),
    )
      .then((receipt) => receipt.status)
      .catch(() => 'refused');
    assert.notEqual(stolen, 'success');

    const refunded = await sendExactly({ to: refund.details.to as Hex, data: refund.details.data, value: '0' });
    assert.equal(refunded.status, 'success');
    assert.equal(await node.tokenBalance(token, user().address), userBefore);
    await node.mine(CONFIRMATIONS - 1);
    assert.equal((await settled).state, 'Refunded');
    assert.deepEqual(
      changes.map((change) => change.state),
      ['WaitingForFundingTxConfirmation', 'Funded', 'WaitingForRefundTx', 'WaitingForRefundTxConfirmation', 'Refunded'],
    );
    assert.equal(changes[1]?.transactionId, funding.transactionHash);
    const transactions = await getJson<{ type: string; id: string }[]>(`/api/orders/${quote.orderId}/transactions`);
    assert.deepEqual(transactions, [
      { type: 'FUND', id: funding.transactionHash },
      { type: 'REFUND', id: refunded.transactionHash },
    ]);
    const order = await getJson<Record<string, unknown>>(`/api/orders/${quote.orderId}`);
    assert.equal(order.state, 'Refunded');
    assert.equal(order.amountPaid, '6.03');
    assert.equal(order.paymentPreimage, undefined);
  });

  test("a stranger's 1-unit token slot after the user's moves nothing of the order; Refunded after the user's refund", async () => {
    await atTip();
    const userSocket = await harness.connect('/user/v1');
    const { paymentHash, quote } = await quoteForNewInvoice(userSocket);
    const changes: StateChanged[] = [];
    const { settled } = await followOrder(userSocket, quote.orderId, (change) => changes.push(change));
    await broadcastExactly(userSocket, quote.details.unsignedApprovalTx);
    const funding = await broadcastExactly(userSocket, quote.details.unsignedFundingTx);
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => changes.some((change) => change.state === 'Funded'), 'Funded');
    const userRefundHeight = Number(funding.blockNumber) + REFUND_DELAY;
    await node.approveToken(token, attacker(), contract, 1n);
    const dust = await sendExactly(
      {
        to: contract,
        data: encodeFundTokenCalldata(quote.orderId, paymentHash, PROVIDER_PAYOUT_ADDRESS, token, 1n),
        value: '0',
      },
      attacker(),
    );
    await node.mine(CONFIRMATIONS - 1);
    await atTip();
    assert.ok(Number(dust.blockNumber) + REFUND_DELAY > userRefundHeight);

    type Refund = { refundableAtBlockHeight: number; refundableBalance: string };
    const topLevel = await getJson<Refund>(`/api/orders/${quote.orderId}/refund`);
    assert.equal(topLevel.refundableAtBlockHeight, userRefundHeight, "the stranger's slot moves nothing");
    assert.equal(topLevel.refundableBalance, '6.03');
    const byStranger = await getJson<Refund>(`/api/orders/${quote.orderId}/refund?funder=${attacker().address}`);
    assert.equal(byStranger.refundableAtBlockHeight, Number(dust.blockNumber) + REFUND_DELAY);
    assert.equal(byStranger.refundableBalance, '0.000001');
    const byUser = await getJson<Refund>(`/api/orders/${quote.orderId}/refund?funder=${user().address}`);
    assert.deepEqual(byUser, topLevel);

    await node.mine(userRefundHeight - Number(await node.blockNumber()));
    await eventually(() => changes.some((change) => change.state === 'WaitingForRefundTx'), 'WaitingForRefundTx');
    const refunded = await sendExactly({ to: contract, data: encodeRefundCalldata(quote.orderId), value: '0' });
    assert.equal(refunded.status, 'success');
    await node.mine(CONFIRMATIONS - 1);
    assert.equal((await settled).state, 'Refunded', "the stranger's unit holds nothing back");
  });

  test("a blacklisted token order: the operator's admin-refund pays the user's tokens back, nobody else's", async () => {
    await atTip();
    const userSocket = await harness.connect('/user/v1');
    const { paymentHash, quote } = await quoteForNewInvoice(userSocket);
    const changes: StateChanged[] = [];
    const { settled } = await followOrder(userSocket, quote.orderId, (change) => changes.push(change));
    const userBefore = await node.tokenBalance(token, user().address);
    await broadcastExactly(userSocket, quote.details.unsignedApprovalTx);
    await broadcastExactly(userSocket, quote.details.unsignedFundingTx);
    // The attacker's own slot under the same order: the admin refund must not pay it, nor count it.
    await node.approveToken(token, attacker(), contract, AMOUNT);
    await sendExactly(
      {
        to: contract,
        data: encodeFundTokenCalldata(quote.orderId, paymentHash, attacker().address, token, AMOUNT),
        value: '0',
      },
      attacker(),
    );
    await node.mine(CONFIRMATIONS - 1);
    await eventually(() => changes.some((change) => change.state === 'Funded'), 'Funded');

    await succeed(maker, 'paymentResult', {
      orderId: quote.orderId,
      success: false,
      failedReason: 'AddressBlacklisted',
    });
    await eventually(
      () => changes.some((change) => change.state === 'AddressBlacklistedWaitingForRefundTx'),
      'AddressBlacklistedWaitingForRefundTx',
    );
    const attackerBefore = await node.tokenBalance(token, attacker().address);
    const ownerKey = bytesToHex(node.accounts[0]!.getHdKey().privateKey!);
    const refunded = await runCli(['contract', 'admin-refund', quote.orderId, '--ethereum-rpc', node.rpcUrl], {
      env: { OWNER_PRIVATE_KEY: ownerKey, DATABASE_URL: harness.fresh.url },
    });
    assert.equal(refunded.code, 0, refunded.stderr);
    assert.match(refunded.stdout, /refunding 1 of 1 open matching slot\(s\)/);
    assert.match(refunded.stdout, /^refund 0x[0-9a-f]{40} \d+ base units of SUSDC \(principal\): gas \d+$/m);
    assert.equal(await node.tokenBalance(token, user().address), userBefore, "the user's tokens are back");
    assert.equal(await node.tokenBalance(token, attacker().address), attackerBefore, "the attacker's slot stays shut");
    await node.mine(CONFIRMATIONS - 1);
    assert.equal((await settled).state, 'Refunded');
    const order = await getJson<Record<string, unknown>>(`/api/orders/${quote.orderId}`);
    assert.equal(order.state, 'Refunded');
    assert.equal(order.amountPaid, '6.03', "only the user's slot was paid in");
  });
});

/**
 * A provider quoting the token market over socket.io: its fundToken call names the token, the full amount and
 * its registered payout address as the claimer. `addProvider` registers PROVIDER_PAYOUT_ADDRESS for it.
 */
async function startTokenMaker(harness: TestService, contract: () => Address, token: () => Address): Promise<Client> {
  const keys = await addProvider(harness.fresh.store, 'token-maker');
  const socket = await connectClient(harness.service.url, '/provider/v1');
  socket.on('requestQuote', (request: QuoteRequestEvent) => {
    const invoice = decodeInvoice(request.invoice);
    if (request.market !== MARKET || invoice?.amountMillisatoshis === undefined) return;
    const amount = (invoice.amountMillisatoshis / 1000n + PREMIUM_SATOSHIS) * UNITS_PER_SATOSHI;
    socket.emit(
      'makerQuote',
      {
        orderId: request.orderId,
        quoteExpiryTimestampMs: request.requestExpiryTimestampMs + 60_000,
        amount: formatFixedPoint(amount, DECIMALS),
        details: {
          unsignedFundingTx: {
            to: contract(),
            data: encodeFundTokenCalldata(
              request.orderId,
              invoice.paymentHash,
              PROVIDER_PAYOUT_ADDRESS,
              token(),
              amount,
            ),
            value: '0',
          },
        },
      },
      () => {},
    );
  });
  await succeed(socket, 'authenticate', keys);
  await succeed(socket, 'activeConfiguration', { [MARKET]: { payReq: BOT_PAY_REQ } });
  await succeed(socket, 'subscribeToQuotes', [MARKET]);
  return socket;
}
