import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { requestQuote } from '../../../examples/user-client.js';
import { parseDecimalAmount } from '../../../src/domain/amounts.js';
import type { SwapContractVersion } from '../../../src/domain/order.js';
import type { LightningBackend } from '../../../src/chains/lightning/lightning-backend.js';
import { openLightningBackend } from '../../../src/provider/config/open-lightning-backend.js';
import { parseProviderConfig } from '../../../src/provider/config/provider-config.js';
import { startProviderDaemon, type ProviderDaemon } from '../../../src/provider/daemon/provider-daemon.js';
import { startAnvil, type AnvilNode } from '../anvil.js';
import { configuration } from '../fixtures.js';
import { makeInvoice, type SignedInvoice } from '../invoices.js';
import { startClnRestStandIn } from '../lightning/cln-rest-stand-in.js';
import { startLndRestStandIn } from '../lightning/lnd-rest-stand-in.js';
import { SimulatedPayments, type PayeeBehaviour } from '../lightning/simulated-payments.js';
import {
  addProvider,
  eventually,
  recordingLogger,
  silentLogger,
  startTestService,
  type ProviderKeys,
  type TestService,
} from '../ws/harness.js';

export const ETHER_MARKET = 'SETH_LSBTC';
export const TOKEN_MARKET = 'SUSDC_LSBTC';
export const REFUND_DELAY = 40;
export const CONFIRMATIONS = 2;
export const INVOICE_SATOSHIS = 100_000n;
/**
 * How often the provider daemons of these tests go round, and the service reads Anvil: each round costs a few
 * milliseconds of CPU across the daemon, the service and Anvil, and no test here measures latency finer than a
 * second, so rounds every 20 ms spent most of these files' CPU waiting.
 */
export const POLL_INTERVAL_MS = 100;
const MACAROON = Buffer.from('ab'.repeat(16), 'hex');
const RUNE = 'provider-daemon-test-rune';

/**
 * One Anvil (the swap contract, a 6-decimal token), one lnswap service watching it, and one stand-in
 * LND and one stand-in Core Lightning over a shared simulated network: everything a provider daemon
 * test file needs, shared by its tests.
 */
export interface ProviderWorld {
  readonly anvil: AnvilNode;
  readonly contract: Address;
  readonly token: Address;
  readonly harness: TestService;
  /** What the service logged, parsed: what it was told shows there. */
  readonly serviceLines: readonly Record<string, unknown>[];
  readonly payments: SimulatedPayments;
  readonly dir: string;
  /** A provider registered with a fresh payout key; its account gets gas unless `unfunded`. */
  newProvider(name: string, options?: { unfunded?: boolean }): Promise<TestProvider>;
  /** Writes a configuration file for `lightning`, with `overrides` merged into its ethereum section. */
  writeConfig(name: string, lightning: 'lnd' | 'cln', ethereum?: Record<string, unknown>): string;
  /** Gas for an account. */
  fundGas(address: Address): Promise<void>;
  /** Where the daemon started as `name` keeps its state. */
  stateFile(name: string): string;
  /**
   * The daemon as `lnswap provider` runs it, in this process (starting the command costs a CPU-second; only a test
   * that kills it needs its process), for `provider` with the configuration `writeConfig` would write, keeping its
   * state in `stateFile(name)`.
   */
  startDaemon(name: string, provider: TestProvider, options?: DaemonOptions): Promise<ProviderDaemon>;
  /**
   * A user's swap: a quote for a fresh invoice with `behaviour` at the payee, funded as quoted, confirmed.
   * `beforeFunding` runs between the quote and the funding.
   */
  swap(market: string, behaviour: PayeeBehaviour, beforeFunding?: (orderId: string) => Promise<void>): Promise<Swap>;
  orderState(orderId: string): Promise<string>;
  close(): Promise<void>;
}

export interface DaemonOptions {
  /** The node it pays through: the stand-in LND unless given. */
  lightning?: 'lnd' | 'cln';
  /** Merged into the configuration's ethereum section. */
  ethereum?: Record<string, unknown>;
  /** Where it reads the service: the world's service unless given (a relay in front of it, say). */
  serviceUrl?: string;
  /** POLL_INTERVAL_MS unless given. */
  pollIntervalMs?: number;
  /** Silent unless given. */
  logger?: Logger;
  /** Serves /metrics and the probes on a free port of 127.0.0.1. */
  probes?: boolean;
  /** What stands between the daemon and its node: the node itself unless given. */
  wrapLightning?: (node: LightningBackend) => LightningBackend;
}

export interface TestProvider {
  readonly keys: ProviderKeys;
  readonly payoutKey: Hex;
  readonly payoutAddress: Address;
}

export interface Swap {
  readonly orderId: string;
  readonly invoice: SignedInvoice;
  /** Base units funded. */
  readonly amount: bigint;
  readonly fundHeight: number;
}

/** `contractVersion`: the swap contract deployed and quoted on, the second unless given. */
export async function startProviderWorld(
  options: { contractVersion?: SwapContractVersion } = {},
): Promise<ProviderWorld> {
  const anvil = await startAnvil();
  const user = anvil.accounts[1]!;
  const contract = await anvil.deploySwapContract(BigInt(REFUND_DELAY), undefined, options.contractVersion);
  const token = await anvil.deployDemoToken({ symbol: 'SUSDC', decimals: 6 });
  await anvil.mintDemoToken(token, user.address, 10n ** 15n);
  const serviceLog = recordingLogger();
  const harness = await startTestService('sqlite', {
    logger: serviceLog.logger,
    configuration: configuration({
      markets: [ETHER_MARKET, TOKEN_MARKET],
      tokens: [{ ticker: 'SUSDC', network: 'simnet', address: token.toLowerCase(), decimals: 6 }],
      chains: { ethereum: { blockHeight: 0, swapContractAddress: contract.toLowerCase() } },
      providers: [],
    }),
    engine: { quoteDeadlineMs: 1_000 },
    ethereum: { rpcUrl: anvil.rpcUrl, confirmations: CONFIRMATIONS, pollIntervalMs: POLL_INTERVAL_MS, startHeight: 0 },
  });
  const payments = new SimulatedPayments();
  const lnd = await startLndRestStandIn(payments, MACAROON.toString('hex'));
  const cln = await startClnRestStandIn(payments, RUNE);
  const dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-daemon-'));
  const files = {
    lndCert: join(dir, 'lnd-tls.cert'),
    macaroon: join(dir, 'admin.macaroon'),
    clnCert: join(dir, 'cln-ca.pem'),
    rune: join(dir, 'rune'),
  };
  writeFileSync(files.lndCert, lnd.certificatePem);
  writeFileSync(files.macaroon, MACAROON);
  writeFileSync(files.clnCert, cln.certificatePem);
  writeFileSync(files.rune, `${RUNE}\n`);

  /** The provider configuration file's contents, as `lnswap provider` reads it. */
  const providerConfig = (lightning: 'lnd' | 'cln', ethereum: Record<string, unknown> = {}) => {
    const pricing = {
      feeBasisPoints: 50,
      baseFee: '0',
      minimumSatoshis: '1000',
      maximumSatoshis: '1000000',
      routingFeeLimitBasisPoints: 100,
      minimumInvoiceLifetimeSeconds: 600,
    };
    return {
      lightning:
        lightning === 'lnd'
          ? { kind: 'lnd', url: lnd.url, macaroonFile: files.macaroon, tlsCertFile: files.lndCert }
          : { kind: 'cln', url: cln.url, runeFile: files.rune, tlsCertFile: files.clnCert },
      inventoryLimitSatoshis: '10000000',
      fundWindowSeconds: 600,
      paymentTimeoutSeconds: 30,
      ethereum: {
        swapContract: contract,
        confirmations: CONFIRMATIONS,
        claimMarginBlocks: 10,
        fundingLookbackBlocks: 1000,
        claimFees: { stuckAfterBlocks: 3, urgentBlocks: 5, bumpPercent: 150, maximumGwei: '1000' },
        ...ethereum,
      },
      markets: {
        [ETHER_MARKET]: { rate: { fixed: '30' }, ...pricing },
        [TOKEN_MARKET]: { rate: { fixed: '90000' }, token: { address: token, decimals: 6 }, ...pricing },
      },
    };
  };
  const writeConfig = (name: string, lightning: 'lnd' | 'cln', ethereum?: Record<string, unknown>): string => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(providerConfig(lightning, ethereum), null, 2));
    return path;
  };
  const stateFile = (name: string) => join(dir, `${name}.sqlite`);
  const fundGas = async (address: Address) => {
    const hash = await anvil.wallet(anvil.accounts[0]).sendTransaction({ to: address, value: 10n ** 18n });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
  };

  return {
    anvil,
    contract,
    token,
    harness,
    serviceLines: serviceLog.lines,
    payments,
    dir,
    fundGas,
    stateFile,
    async startDaemon(name, provider, options = {}) {
      const file = parseProviderConfig(providerConfig(options.lightning ?? 'lnd', options.ethereum));
      const node = openLightningBackend(file.lightning);
      return startProviderDaemon(
        {
          serviceUrl: options.serviceUrl ?? harness.service.url,
          credentials: provider.keys,
          stateFile: stateFile(name),
          pollIntervalMs: options.pollIntervalMs ?? POLL_INTERVAL_MS,
          ...(options.probes === true ? { probes: { host: '127.0.0.1', port: 0 } } : {}),
          file,
          ethereum: { rpcUrl: anvil.rpcUrl, payoutKey: provider.payoutKey },
        },
        { logger: options.logger ?? silentLogger, lightning: options.wrapLightning?.(node) ?? node },
      );
    },
    async newProvider(name, options = {}) {
      const payoutKey = generatePrivateKey();
      const payoutAddress = privateKeyToAccount(payoutKey).address;
      const keys = await addProvider(harness.fresh.store, name, payoutAddress);
      if (options.unfunded !== true) await fundGas(payoutAddress);
      return { keys, payoutKey, payoutAddress };
    },
    writeConfig,
    async swap(market, behaviour, beforeFunding) {
      const socket = await harness.connect('/user/v1');
      try {
        const invoice = makeInvoice({ network: 'simnet', amountSatoshis: INVOICE_SATOSHIS, expirySeconds: 7_200 });
        payments.expect(invoice, behaviour);
        const quote = await requestQuote(socket, { market, invoice: invoice.invoice });
        const details = quote.details as Record<
          'unsignedFundingTx' | 'unsignedApprovalTx',
          { to: Hex; data: Hex; value: string }
        >;
        await beforeFunding?.(quote.orderId);
        const wallet = anvil.wallet(user);
        if (details.unsignedApprovalTx !== undefined) {
          const { to, data } = details.unsignedApprovalTx;
          await anvil.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, data }) });
        }
        const { to, data, value } = details.unsignedFundingTx;
        const receipt = await anvil.publicClient.waitForTransactionReceipt({
          hash: await wallet.sendTransaction({ to, data, value: BigInt(value) }),
        });
        if (receipt.status !== 'success') throw new Error('the funding reverted');
        await anvil.mine(CONFIRMATIONS - 1);
        const amount = BigInt(value) > 0n ? BigInt(value) : parseDecimalAmount(quote.amount, 6)!;
        return { orderId: quote.orderId, invoice, amount, fundHeight: Number(receipt.blockNumber) };
      } finally {
        socket.close();
      }
    },
    async orderState(orderId) {
      const response = await fetch(`${harness.service.url}/api/orders/${orderId}/state`);
      return (await response.json()) as string;
    },
    async close() {
      await harness.close();
      await lnd.close();
      await cln.close();
      await anvil.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the order reaches `state`, mining nothing: the funding step mines its confirmations itself. */
export async function untilState(world: ProviderWorld, orderId: string, state: string): Promise<void> {
  await eventually(async () => (await world.orderState(orderId)) === state, `order ${orderId} to be ${state}`);
}
