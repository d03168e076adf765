import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { startProviderBot, type ProviderBot } from '../../examples/provider-bot.js';
import { requestQuote } from '../../examples/user-client.js';
import { encodeClaimCalldata, encodeFundCalldata } from '../../src/domain/ethereum.js';
import type { OrderState } from '../../src/domain/states.js';
import type { RunningService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { anvilSkipReason } from '../support/anvil.js';
import { runInProcess } from '../support/cli/cli-process.js';
import { BOT_PAY_REQ, makerTerms, WEI_PER_SATOSHI } from '../support/e2e/bots.js';
import { PROVIDER_PAYOUT_ADDRESS } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { startSwapChain, type SwapChain, swapChainConfiguration } from '../support/chains/ethereum/swap-chain.js';
import { addProvider, connectClient, eventually, startOnStore, type Client } from '../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const REFUND_DELAY = 30;
const CONFIRMATIONS = 2;
const INVOICE_SATOSHIS = 20_000n;
const PREMIUM_SATOSHIS = 100n;
const VALUE = (INVOICE_SATOSHIS + PREMIUM_SATOSHIS) * WEI_PER_SATOSHI;

interface Quoted {
  readonly orderId: string;
  readonly paymentHash: string;
  readonly preimage: string;
  readonly funding: { to: Hex; data: Hex; value: string };
}

/**
 * The operator's switch from a v2 contract to a v3 one, as docs/operations.md tells it: stop serve,
 * `lnswap contract use`, start serve. Orders made on v2 keep being watched and answered with v2 until final, new
 * orders are made on v3, and a slot opened under an order's id in the other contract moves nothing.
 */
describe('a swap contract switch on Anvil: v2 and v3 orders live at once', { skip: anvilSkipReason }, () => {
  let chain: SwapChain;
  let v2: Hex;
  let v3: Hex;
  let directory: string;
  let databaseUrl: string;
  let running: { store: Store; service: RunningService; bot: ProviderBot; user: Client } | undefined;

  before(async () => {
    chain = await startSwapChain({ refundDelay: REFUND_DELAY });
    v2 = chain.contractAddress;
    v3 = await chain.node.deploySwapContract(BigInt(REFUND_DELAY), undefined, 3);
    await chain.mine(5);
    directory = await mkdtemp(join(tmpdir(), 'lnswap-contract-switch-'));
    databaseUrl = `sqlite:${join(directory, 'lnswap.sqlite')}`;
  });
  after(async () => {
    await stop();
    await chain?.close();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  /** `lnswap serve` on the database, with a provider quoting on `contract`, once the watcher is at the tip. */
  async function serve(contract: Hex, setUp?: (store: Store) => Promise<void>): Promise<void> {
    const store = await openStore(databaseUrl);
    await setUp?.(store);
    const service = await startOnStore(store, databaseUrl, {
      engine: { quoteDeadlineMs: 300 },
      ethereum: { rpcUrl: chain.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: 20, startHeight: 0 },
    });
    const keys = await addProvider(store, `maker-${contract.slice(2, 8).toLowerCase()}`);
    const bot = await startProviderBot({
      socket: await connectClient(service.url, '/provider/v1'),
      ...keys,
      markets: { [MARKET]: BOT_PAY_REQ },
      terms: { ...makerTerms('maker', PREMIUM_SATOSHIS, 60_000), swapContractAddress: contract },
    });
    running = { store, service, bot, user: await connectClient(service.url, '/user/v1') };
    await atTip();
  }

  async function stop(): Promise<void> {
    if (running === undefined) return;
    running.bot.close();
    running.user.close();
    await running.service.close();
    await running.store.close();
    running = undefined;
  }

  function live(): NonNullable<typeof running> {
    if (running === undefined) throw new Error('the service is not running');
    return running;
  }

  async function atTip(): Promise<void> {
    const tip = await chain.height();
    await eventually(
      async () => ((await live().store.getConfiguration()).chains.ethereum?.blockHeight ?? -1) >= tip,
      `the watcher at block ${tip}`,
    );
  }

  async function quote(label: string): Promise<Quoted> {
    const { invoice, paymentHash, preimage } = makeInvoice({
      network: 'simnet',
      amountSatoshis: INVOICE_SATOSHIS,
      expirySeconds: 7200,
      description: label,
    });
    const answer = await requestQuote(live().user, { market: MARKET, invoice });
    const { unsignedFundingTx } = answer.details as { unsignedFundingTx: Quoted['funding'] };
    return { orderId: answer.orderId, paymentHash, preimage, funding: unsignedFundingTx };
  }

  /** Sends a transaction from `party` and waits for its block. */
  async function send(party: 'user' | 'attacker' | 'provider', to: Hex, data: Hex, value = 0n): Promise<void> {
    const hash = await chain.node.wallet(chain.account(party)).sendTransaction({ to, data, value });
    const receipt = await chain.node.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
  }

  async function confirmed(): Promise<void> {
    await chain.mine(CONFIRMATIONS);
    await atTip();
  }

  async function reaches(orderId: string, state: OrderState): Promise<void> {
    await eventually(async () => (await live().store.getOrder(orderId))?.state === state, `${orderId} in ${state}`);
  }

  async function api(orderId: string, tail: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${live().service.url}/api/orders/${orderId}${tail}`);
    assert.equal(response.status, 200);
    return (await response.json()) as Record<string, unknown>;
  }

  async function contractsNamedBy(orderId: string): Promise<{ funding: unknown; refund: unknown }> {
    const funding = (await api(orderId, '/fundDetails')).details as { unsignedFundingTx: { to: string } };
    const refund = (await api(orderId, '/refund')).details as { to: string };
    return { funding: funding.unsignedFundingTx.to.toLowerCase(), refund: refund.to.toLowerCase() };
  }

  test('an order funded on v2 completes there after the switch; a new order is made, funded and completed on v3', async () => {
    await serve(v2, (store) =>
      store.importAtomically((session) => session.writeConfiguration(swapChainConfiguration(chain, MARKET))),
    );
    const old = await quote('made on v2');
    assert.equal(old.funding.to.toLowerCase(), v2.toLowerCase());
    await send('user', old.funding.to, old.funding.data, BigInt(old.funding.value));
    await confirmed();
    await reaches(old.orderId, 'Funded');
    await stop();

    const switched = await runInProcess(['contract', 'use', v3, '--ethereum-rpc', chain.rpcUrl, '--db', databaseUrl]);
    assert.equal(switched.code, 0, switched.stderr);
    const history = switched.stdout.trimEnd().split('\n');
    assert.equal(history.length, 2, switched.stdout);
    assert.match(history[0]!, new RegExp(`^${v2.toLowerCase()} version 2 since before the history$`));
    assert.match(history[1]!, new RegExp(`^${v3.toLowerCase()} version 3 since \\S+ \\(current: new quotes\\)$`));

    await serve(v3);
    const view = (await live().store.getConfiguration()).chains.ethereum;
    assert.equal(view?.swapContractAddress.toLowerCase(), v3.toLowerCase());
    assert.deepEqual(
      view?.contracts?.map(({ address, version }) => ({ address, version })),
      [
        { address: v2.toLowerCase(), version: 2 },
        { address: v3.toLowerCase(), version: 3 },
      ],
    );
    const fresh = await quote('made on v3');
    assert.equal(fresh.funding.to.toLowerCase(), v3.toLowerCase());
    assert.deepEqual(await contractsNamedBy(old.orderId), { funding: v2.toLowerCase(), refund: v2.toLowerCase() });

    // Slots with each order's exact terms, full amount, in the other contract: neither order may count them.
    const stranger = (orderId: string, paymentHash: string) =>
      encodeFundCalldata(orderId, paymentHash, PROVIDER_PAYOUT_ADDRESS);
    await send('attacker', v3, stranger(old.orderId, old.paymentHash), VALUE);
    await send('attacker', v2, stranger(fresh.orderId, fresh.paymentHash), VALUE);
    await confirmed();
    const [oldOrder, freshOrder] = await Promise.all([
      live().store.getOrder(old.orderId),
      live().store.getOrder(fresh.orderId),
    ]);
    assert.equal(oldOrder?.state, 'Funded');
    assert.equal(oldOrder?.transactions.length, 1, 'the v3 slot under the v2 order counted toward it');
    assert.equal(freshOrder?.state, 'WaitingForFundingTx', 'the v2 slot under the v3 order counted toward it');
    assert.deepEqual(freshOrder?.transactions, []);

    await send('user', fresh.funding.to, fresh.funding.data, BigInt(fresh.funding.value));
    await confirmed();
    await reaches(fresh.orderId, 'Funded');
    assert.equal((await live().store.getOrder(fresh.orderId))?.transactions.length, 1);
    assert.deepEqual(await contractsNamedBy(fresh.orderId), { funding: v3.toLowerCase(), refund: v3.toLowerCase() });

    const funder = chain.account('user').address;
    await send('provider', v2, encodeClaimCalldata(old.orderId, funder, old.preimage));
    await send('provider', v3, encodeClaimCalldata(fresh.orderId, funder, fresh.preimage));
    await confirmed();
    await reaches(old.orderId, 'Complete');
    await reaches(fresh.orderId, 'Complete');
    assert.deepEqual(await contractsNamedBy(old.orderId), { funding: v2.toLowerCase(), refund: v2.toLowerCase() });
  });
});
