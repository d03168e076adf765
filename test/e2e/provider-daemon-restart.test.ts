/**
 * `kill -9` of the `lnswap provider` command (a child process) at the two moments that can lose money:
 * after paying and before claiming (its payout account has no gas yet, so the claim cannot go out),
 * and during a payment in flight. After a restart on the same state file it claims, and it never pays
 * the invoice again: the stand-in node counts what it sent.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readEthereumSlot } from '../../src/provider/ethereum/ethereum-claim.js';
import { anvilSkipReason } from '../support/anvil.js';
import { eventually } from '../support/eventually.js';
import { startCli, waitForLine } from '../support/cli/cli-process.js';
import {
  ETHER_MARKET,
  POLL_INTERVAL_MS,
  startProviderWorld,
  untilState,
  type ProviderWorld,
  type TestProvider,
} from '../support/e2e/provider-world.js';

describe('lnswap provider killed with SIGKILL and restarted', { skip: anvilSkipReason }, () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld();
  });
  after(async () => {
    await world?.close();
  });

  interface Running {
    child: ChildProcessWithoutNullStreams;
    output: () => string;
  }

  async function startCommand(name: string, provider: TestProvider): Promise<Running> {
    const child = startCli(['provider', '--poll-interval-ms', String(POLL_INTERVAL_MS), '--metrics-port', 'off'], {
      env: {
        LNSWAP_PROVIDER_CONFIG: world.writeConfig(name, 'lnd'),
        LNSWAP_SERVICE_URL: world.harness.service.url,
        LNSWAP_PROVIDER_STATE: join(world.dir, `${name}.sqlite`),
        ETHEREUM_RPC_URL: world.anvil.rpcUrl,
        LNSWAP_PROVIDER_API_KEY: provider.keys.apiKey,
        LNSWAP_PROVIDER_SECRET_KEY: provider.keys.secretKey,
        LNSWAP_PROVIDER_ETHEREUM_KEY: provider.payoutKey,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitForLine(child, (line) => (line.includes('lnswap provider is running') ? true : undefined));
    return { child, output: () => output };
  }

  async function kill(running: Running): Promise<void> {
    const closed = once(running.child, 'close');
    running.child.kill('SIGKILL');
    await closed;
  }

  function assertNoSecret(running: Running, provider: TestProvider): void {
    const output = running.output();
    assert.ok(!output.includes(provider.keys.secretKey), 'the secret key is never logged');
    assert.ok(!output.includes(provider.keys.apiKey), 'the API key is never logged');
    assert.ok(!output.includes(provider.payoutKey.slice(2)), 'the payout key is never logged');
  }

  async function slotState(orderId: string) {
    const funder = world.anvil.accounts[1]!.address;
    return (await readEthereumSlot(world.anvil.publicClient, world.contract, orderId, funder)).state;
  }

  test('killed after paying and before claiming: the restart claims, and pays nothing again', async () => {
    const provider = await world.newProvider('paid-unclaimed', { unfunded: true });
    const first = await startCommand('paid-unclaimed', provider);
    const swap = await world.swap(ETHER_MARKET, 'settle');
    await eventually(() => world.payments.sendAttempts.get(swap.invoice.paymentHash) === 1, 'the invoice paid');
    await eventually(() => first.output().includes('claim failed'), 'the claim refused for want of gas');
    await kill(first);
    assertNoSecret(first, provider);
    assert.equal(await slotState(swap.orderId), 'funded', 'not claimed before the kill');

    await world.fundGas(provider.payoutAddress);
    const second = await startCommand('paid-unclaimed', provider);
    try {
      await eventually(async () => (await slotState(swap.orderId)) === 'claimed', 'the claim after restart');
      await untilState(world, swap.orderId, 'Complete');
      assert.equal(world.payments.sendAttempts.get(swap.invoice.paymentHash), 1, 'paid once');
      assertNoSecret(second, provider);
    } finally {
      await kill(second);
    }
  });

  test('killed during a payment in flight: the restart finds its outcome, never pays again, and claims', async () => {
    const provider = await world.newProvider('in-flight');
    const first = await startCommand('in-flight', provider);
    const swap = await world.swap(ETHER_MARKET, 'hold');
    await eventually(() => world.payments.sendAttempts.get(swap.invoice.paymentHash) === 1, 'the payment in flight');
    await kill(first);
    world.payments.settle(swap.invoice.paymentHash);

    const second = await startCommand('in-flight', provider);
    try {
      await eventually(async () => (await slotState(swap.orderId)) === 'claimed', 'the claim after restart');
      await untilState(world, swap.orderId, 'Complete');
      assert.equal(world.payments.sendAttempts.get(swap.invoice.paymentHash), 1, 'never sent again');
      assertNoSecret(second, provider);
    } finally {
      await kill(second);
    }
  });
});
