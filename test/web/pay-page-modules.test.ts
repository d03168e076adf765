/**
 * The pay page's modules that need no browser, loaded from web/pay/ as the bundle takes them (JavaScript, not
 * built): the invoice reader, the market fit, the sentences, the amounts, and the checks made before paying.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { address as bitcoinAddress, networks, type Psbt } from 'bitcoinjs-lib';
import { createPublicClient, http, type PublicClient } from 'viem';
import { claimPublicKeyOf } from '../../examples/maker-quote.js';
import type { UnsafeFundingDetails as UnsafeFundingDetailsClass } from '../../src/client/index.js';
import { SimulatedLightningPayee } from '../../src/demo/lightning/simulated-lightning-payee.js';
import { buildHtlcRedeemScript, htlcPayToAddresses, refundPublicKeyHashOfAddress } from '../../src/domain/bitcoin.js';
import { encodeRefundCalldata } from '../../src/domain/ethereum.js';
import { p2wpkhAddress, walletKey } from '../support/bitcoin-wallet.js';
import { loadPayPageModules } from '../support/pay-page-modules.js';
import { hex32 } from '../support/fixtures.js';
import { repositoryPath } from '../support/repository.js';

interface ReadInvoice {
  readonly refusal?: string;
  readonly network?: string;
  readonly satoshis?: bigint;
  readonly millisatoshis?: bigint;
  readonly description?: string;
  readonly expiresAtMs?: number;
}
type PayReq = { minExpirationSeconds: string; minBaseUnits: string; maxBaseUnits: string };

const load = async <T>(file: string) => (await import(pathToFileURL(repositoryPath('web', 'pay', file)).href)) as T;
const { readInvoice } = await load<{ readInvoice: (text: string, nowMs: number) => ReadInvoice }>('invoice.js');
const { fitMarkets } = await load<{
  fitMarkets: (
    invoice: ReadInvoice,
    requirements: { market: string; payReq: PayReq }[],
    nowMs: number,
  ) => { market: string; misfit?: string }[];
}>('market-fit.js');
const { sentence } = await load<{ sentence: (token: string) => string }>('sentences.js');
const { pricePerBitcoin, bitcoinOfSatoshis } = await load<{
  pricePerBitcoin: (amount: string, satoshis: bigint) => string;
  bitcoinOfSatoshis: (satoshis: bigint) => string;
}>('amounts.js');
const {
  checkedBitcoinFunding,
  checkedBitcoinRefund,
  checkedEthereumFunding,
  checkedEthereumRefund,
  BITCOIN_MAX_REFUND_DELAY_BLOCKS,
  rescueFile,
  UnsafeFundingDetails,
} = await loadPayPageModules<{
  checkedBitcoinFunding: (quote: unknown, expectations: Record<string, unknown>) => { address: string };
  checkedEthereumFunding: (
    quote: unknown,
    options: { node: PublicClient; paymentHash: string; clock: () => number },
  ) => Promise<unknown>;
  checkedBitcoinRefund: (
    refund: unknown,
    options: { quote: unknown; refundAddress: string },
  ) => { psbt: Psbt; lockTime: number; amount: bigint };
  checkedEthereumRefund: (
    orderId: string,
    refund: unknown,
    options: { funder: string; swapContract: string },
  ) => { to: string; data: string };
  BITCOIN_MAX_REFUND_DELAY_BLOCKS: number;
  rescueFile: (quote: unknown, expectations: Record<string, unknown>) => { name: string; text: string };
  UnsafeFundingDetails: typeof UnsafeFundingDetailsClass;
}>(['funding-checks.js', 'rescue-file.js'], ['UnsafeFundingDetails']);

const payee = new SimulatedLightningPayee(() => undefined);
const payReq = { minExpirationSeconds: '900', minBaseUnits: '1000', maxBaseUnits: '1000000' };

test('readInvoice reads the amount, network, description and expiry of a BOLT11 invoice, and refuses others', () => {
  const now = Date.now();
  const read = readInvoice(`  lightning:${payee.createInvoice(21_000, true).invoice.toUpperCase()} `, now);
  assert.equal(read.refusal, undefined);
  assert.equal(read.network, 'simnet');
  assert.equal(read.satoshis, 21_000n);
  assert.equal(read.millisatoshis, 21_000_000n);
  assert.equal(read.description, 'lnswap demo: a swap that completes');
  assert.ok(Math.abs(read.expiresAtMs! - (now + 3_600_000)) < 5_000);
  assert.equal(readInvoice('lnbc1qqqq', now).refusal, 'InvalidInvoice');
  assert.equal(readInvoice(payee.createInvoice(21_000, true).invoice, now + 3_601_000).refusal, 'InvoiceExpired');
});

test('fitMarkets says in a sentence why each market cannot take the invoice, in the order the service checks', () => {
  const now = Date.now();
  const requirements = [
    { market: 'BTC_LBTC', payReq },
    { market: 'SETH_LSBTC', payReq },
    { market: 'SUSDC_LSBTC', payReq: { ...payReq, minExpirationSeconds: '7200' } },
    { market: 'SETH2_LSBTC', payReq: { ...payReq, maxBaseUnits: '20000' } },
  ];
  const fits = fitMarkets(readInvoice(payee.createInvoice(21_000, true).invoice, now), requirements, now);
  assert.deepEqual(
    fits.map(({ market, misfit }) => [market, misfit]),
    [
      ['BTC_LBTC', 'BTC_LBTC pays mainnet invoices, and this one is for simnet.'],
      ['SETH_LSBTC', undefined],
      ['SUSDC_LSBTC', fits[2]!.misfit],
      ['SETH2_LSBTC', 'SETH2_LSBTC pays invoices of at most 20000 sat, and this one asks for 21000 sat.'],
    ],
  );
  // Within the same second as the invoice was signed or the next: its timestamp is in whole seconds.
  assert.match(
    fits[2]!.misfit ?? '',
    /^SUSDC_LSBTC needs an invoice valid for at least 7200 s, and this one expires in 3[56]\d\d s\.$/,
  );
  // Millisatoshis compared exactly: 999.999 sat is below a 1000 sat minimum.
  const below = {
    ...readInvoice(payee.createInvoice(1_000, true).invoice, now),
    millisatoshis: 999_999n,
    satoshis: 999n,
  };
  assert.match(fitMarkets(below, [{ market: 'SETH_LSBTC', payReq }], now)[0]!.misfit ?? '', /1000 sat or more/);
});

test('every refusal token the service sends a user reads as a sentence, never as the token', () => {
  for (const token of [
    'InvalidMarket',
    'InvalidInvoice',
    'InvalidMarketForInvoice',
    'InvalidRefundAddress',
    'NoQuoteProvidersAvailable',
    'NoQuoteProvidersForTheRequestedMarket',
    'InvoiceExpiresTooSoon',
    'InvoiceAmountBelowMinimum',
    'InvoiceAmountAboveMaximum',
    'SwapAlreadyInProgress',
    'InvoiceAlreadyHadOrder',
    'InvoiceAlreadyHadOrder',
    'TooManySwapsInFlight',
    'NoQuotesAvailable',
  ]) {
    const text = sentence(token);
    assert.ok(!text.includes(token) && /^[A-Z].*\.$/.test(text), `${token}: ${text}`);
  }
});

test('pricePerBitcoin scales the quoted amount to a whole bitcoin exactly', () => {
  assert.equal(pricePerBitcoin('0.006331500000000000', 21_000n), '30.15');
  assert.equal(pricePerBitcoin('6.930000', 23_000n), '30130.434782');
});

test('each fault of the client checks reads as a sentence on both chains, saying nothing was sent or shown', async () => {
  const { unsafeSentence } = await load<{ unsafeSentence: (fault: string, chain: string) => string }>('sentences.js');
  const source = await readFile(repositoryPath('src', 'client', 'unsafe-funding-details.ts'), 'utf8');
  const faults = [...(/type UnsafeFundingFault =([^;]+);/.exec(source)?.[1] ?? '').matchAll(/'(\w+)'/g)].map(
    (match) => match[1]!,
  );
  assert.ok(faults.includes('NotSwapContract') && faults.includes('QuoteExpired'), faults.join(', '));
  for (const fault of faults) {
    const ethereum = unsafeSentence(fault, 'ethereum');
    const bitcoin = unsafeSentence(fault, 'bitcoin');
    assert.ok(!ethereum.includes(fault) && /^[A-Z].*; nothing was sent\.$/.test(ethereum), `${fault}: ${ethereum}`);
    assert.ok(/^[A-Z].*; no address to pay is shown\.$/.test(bitcoin), `${fault}: ${bitcoin}`);
  }
  assert.equal(
    unsafeSentence('NotSwapContract', 'ethereum'),
    'This service asked you to pay an address that is not a swap contract; nothing was sent.',
  );
  assert.notEqual(unsafeSentence('WrongRefundKey', 'bitcoin'), unsafeSentence('WrongAmount', 'bitcoin'));
});

test('bitcoinOfSatoshis writes satoshis as decimal bitcoin exactly', () => {
  assert.equal(bitcoinOfSatoshis(40_100n), '0.000401');
  assert.equal(bitcoinOfSatoshis(1n), '0.00000001');
  assert.equal(bitcoinOfSatoshis(2_100_000_000_000_000n), '21000000');
});

describe("the page's Bitcoin checks: the timelock bound, the height it needs, the rescue file", () => {
  const paymentHash = hex32('pay page modules invoice');
  const refundAddress = p2wpkhAddress(walletKey(hex32('pay page modules refund')), 'mainnet');
  const height = 612_100;
  const quoteRefundingAt = (refundableAtBlockHeight: number) => {
    const redeemScript = buildHtlcRedeemScript({
      paymentHash,
      claimPublicKey: claimPublicKeyOf(hex32('pay page modules claim')),
      refundPublicKeyHash: refundPublicKeyHashOfAddress(refundAddress, 'mainnet')!,
      refundableAtBlockHeight,
    });
    return {
      orderId: '0b0a5e2c-6c1f-4f7e-9d3c-2a1b0c9d8e7f',
      expiryTimestampMs: Date.now() + 600_000,
      amount: '0.000401',
      details: {
        redeemScript,
        payToAddress: htlcPayToAddresses(redeemScript, 'mainnet').p2wsh,
        refundableAtBlockHeight,
      },
    };
  };
  const expectations = { paymentHash, refundAddress, network: 'mainnet', currentBlockHeight: height };

  test('a timelock two weeks of blocks away is paid, one block further is refused', () => {
    const within = quoteRefundingAt(height + BITCOIN_MAX_REFUND_DELAY_BLOCKS);
    assert.equal(checkedBitcoinFunding(within, expectations).address, within.details.payToAddress);
    assert.throws(
      () => checkedBitcoinFunding(quoteRefundingAt(height + BITCOIN_MAX_REFUND_DELAY_BLOCKS + 1), expectations),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'RefundDelayTooLong',
    );
  });

  test('without a height from the service nothing is paid; past the window by the clock given, neither', () => {
    const quote = quoteRefundingAt(height + 144);
    assert.throws(
      () => checkedBitcoinFunding(quote, { ...expectations, currentBlockHeight: undefined }),
      (error) => (error as { token?: string }).token === 'UnknownBlockHeight',
    );
    assert.throws(
      () => checkedBitcoinFunding(quote, { ...expectations, now: quote.expiryTimestampMs }),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'QuoteExpired',
    );
  });

  test("a mainnet height the clock says the chain cannot have reached is the service's lie, and nothing is paid", () => {
    const now = Date.UTC(2026, 11, 2);
    const atHeight = (reported: number) => {
      const quote = { ...quoteRefundingAt(reported + 144), expiryTimestampMs: now + 600_000 };
      return () => checkedBitcoinFunding(quote, { ...expectations, currentBlockHeight: reported, now });
    };
    // Block 840,000 was mined on 20 April 2024; at ten minutes a block the chain is near 977,000 by December 2026.
    assert.equal(typeof atHeight(981_000)().address, 'string');
    for (const lie of [1_000_000, 5_000_000]) {
      assert.throws(atHeight(lie), (error) => (error as { token?: string }).token === 'ImplausibleBlockHeight');
    }
  });

  test("the rescue file is the library's record of the checked quote, named for its order; a lie has none", () => {
    const quote = quoteRefundingAt(height + 144);
    const file = rescueFile(quote, expectations);
    assert.equal(file.name, `rescue-${quote.orderId}.json`);
    assert.deepEqual(JSON.parse(file.text), {
      orderId: quote.orderId,
      network: 'mainnet',
      address: quote.details.payToAddress,
      redeemScript: quote.details.redeemScript,
      refundAddress,
      refundableAtBlockHeight: height + 144,
    });
    const elsewhere = { ...quote, details: { ...quote.details, payToAddress: refundAddress } };
    assert.throws(
      () => rescueFile(elsewhere, expectations),
      (error) => error instanceof UnsafeFundingDetails && error.fault === 'WrongAddress',
    );
  });
  test('the refund PSBT pays the refund address typed here, spending the HTLC checked, whatever the service says', () => {
    const quote = quoteRefundingAt(height + 144);
    const attacker = p2wpkhAddress(walletKey(hex32('pay page modules attacker')), 'mainnet');
    const refund = {
      market: 'BTC_LBTC',
      type: 'TimelockRefund',
      state: 'WaitingForRefundTx',
      blocksRemaining: 0,
      refundableAtBlockHeight: height + 144,
      refundableBalance: '0.000401',
      details: {
        refundAddress: attacker,
        redeemScript: quote.details.redeemScript,
        currentBlockHeight: height + 144,
        feeTokensPerVirtualByte: 2,
        utxos: [{ txId: 'ab'.repeat(32), index: 0, tokens: 40_100 }],
      },
    };
    const paidTo = ({ psbt }: { psbt: Psbt }) =>
      psbt.txOutputs.map((output) => bitcoinAddress.fromOutputScript(output.script, networks.bitcoin));
    assert.deepEqual(paidTo(checkedBitcoinRefund(refund, { quote, refundAddress })), [refundAddress]);
    const later = { ...refund, refundableAtBlockHeight: height + 100_000 };
    assert.equal(checkedBitcoinRefund(later, { quote, refundAddress }).lockTime, height + 144);
    const otherScript = quoteRefundingAt(height + 145).details.redeemScript;
    assert.throws(
      () =>
        checkedBitcoinRefund(
          { ...refund, details: { ...refund.details, redeemScript: otherScript } },
          { quote, refundAddress },
        ),
      (error) => (error as { token?: string }).token === 'UnsafeRefund',
    );
  });
});

test("the Ethereum refund goes to the swap contract funded, not where the service's refund details point", () => {
  const orderId = '0b0a5e2c-6c1f-4f7e-9d3c-2a1b0c9d8e7f';
  const swapContract = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
  const funder = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
  const refundTo = (to: string) => ({
    market: 'ETH_LBTC',
    type: 'TimelockRefund',
    state: 'WaitingForRefundTx',
    blocksRemaining: 0,
    refundableAtBlockHeight: 100,
    refundableBalance: '0.01',
    details: { to, data: encodeRefundCalldata(orderId) },
  });
  const upperCase = `0x${swapContract.slice(2).toUpperCase()}`;
  assert.equal(checkedEthereumRefund(orderId, refundTo(upperCase), { funder, swapContract }).to, upperCase);
  assert.throws(
    () =>
      checkedEthereumRefund(orderId, refundTo('0xa7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7'), { funder, swapContract }),
    (error) => (error as { token?: string }).token === 'UnsafeRefund',
  );
  assert.match(sentence('UnsafeRefund'), /^This service's refund details .*; nothing was sent or signed\.$/);
});

test('a wallet whose node cannot be reached is a refusal of its own, and nothing is checked as paid', async () => {
  const unreachable = createPublicClient({ transport: http('http://127.0.0.1:9/', { retryCount: 0 }) });
  const quote = {
    orderId: '0b0a5e2c-6c1f-4f7e-9d3c-2a1b0c9d8e7f',
    expiryTimestampMs: Date.now() + 600_000,
    amount: '0.01',
    details: { unsignedFundingTx: { to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', data: '0x', value: '1' } },
  };
  await assert.rejects(
    checkedEthereumFunding(quote, { node: unreachable, paymentHash: hex32('x'), clock: () => Date.now() }),
    (error) => (error as { token?: string }).token === 'ContractCheckFailed',
  );
});
