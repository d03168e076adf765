/**
 * `bitcoinFundingAddress` against a lying service: an honest quote, made by the service's own HTLC code
 * (src/domain/bitcoin.ts), is accepted on every network in every form a provider may ask for, and each hostile
 * variant of it, one fault at a time, is refused synchronously with an `UnsafeFundingDetails` naming the fault.
 * The answer's address is judged by bitcoinjs' own address codec, not by the library's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { address as bitcoinAddress, payments, script } from 'bitcoinjs-lib';
import { bitcoinFundingAddress, UnsafeFundingDetails, type UnsafeFundingFault } from '../../src/client/index.js';
import type { BitcoinFundingExpectations } from '../../src/client/bitcoin-funding-address.js';
import { bitcoinJsNetwork, buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import type { Network } from '../../src/domain/markets.js';
import type { FundingDetailsView } from '../../src/wire/response-shapes.js';
import { htlcOutputScript, p2wpkhAddress, walletKey, type HtlcForm } from '../support/bitcoin-wallet.js';
import { hex32, uuidFor } from '../support/fixtures.js';

const NETWORKS: readonly Network[] = ['mainnet', 'testnet', 'simnet'];
/** Each form and the name the service's `htlcPayToAddresses` gives it. */
const FORMS: readonly [HtlcForm, 'p2wsh' | 'p2shP2wsh' | 'p2sh'][] = [
  ['p2wsh', 'p2wsh'],
  ['p2sh-p2wsh', 'p2shP2wsh'],
  ['p2sh', 'p2sh'],
];
const NOW = Date.UTC(2026, 11, 2, 1, 0, 0);
const CURRENT_HEIGHT = 870_000;
const DELAY = 144;
const MAX_DELAY = 288;

const refundKey = walletKey(hex32('funding address refund key'));
const strangerKey = walletKey(hex32('funding address stranger key'));
const claimKey = walletKey(hex32('funding address claim key'));
const paymentHash = hex32('funding address payment hash');

function keyHash(address: string, network: Network): string {
  const decoded = bitcoinAddress.toOutputScript(address, bitcoinJsNetwork(network));
  return Buffer.from(decoded)
    .toString('hex')
    .replace(/^0014|^76a914|88ac$/gu, '');
}

interface HtlcTerms {
  paymentHash: string;
  refundAddress: string;
  refundableAtBlockHeight: number;
}

function redeemScriptOf(network: Network, terms: HtlcTerms): string {
  return buildHtlcRedeemScript({
    paymentHash: terms.paymentHash,
    claimPublicKey: Buffer.from(claimKey.publicKey).toString('hex'),
    refundPublicKeyHash: keyHash(terms.refundAddress, network),
    refundableAtBlockHeight: terms.refundableAtBlockHeight,
  });
}

/** The quote an honest service answers, its HTLC built by the service's own code, and what the wallet knows. */
function honest(network: Network, form: (typeof FORMS)[number], refundAddress = p2wpkhAddress(refundKey, network)) {
  const terms = { paymentHash, refundAddress, refundableAtBlockHeight: CURRENT_HEIGHT + DELAY };
  const redeemScript = redeemScriptOf(network, terms);
  const quote = {
    orderId: uuidFor(`funding address ${network} ${form[0]}`),
    expiryTimestampMs: NOW + 600_000,
    amount: '0.00050000',
    details: {
      redeemScript,
      payToAddress: htlcPayToAddresses(redeemScript, network)[form[1]],
      refundableAtBlockHeight: terms.refundableAtBlockHeight,
    },
  };
  const expectations = {
    paymentHash,
    refundAddress,
    network,
    currentBlockHeight: CURRENT_HEIGHT,
    maxRefundDelayBlocks: MAX_DELAY,
    now: NOW,
  };
  /** The same quote with its HTLC built on other terms, its address that script's: consistent, but not the wallet's. */
  const withTerms = (changed: Partial<HtlcTerms>): FundingDetailsView => {
    const script = redeemScriptOf(network, { ...terms, ...changed });
    return {
      ...quote,
      details: {
        redeemScript: script,
        payToAddress: htlcPayToAddresses(script, network)[form[1]],
        refundableAtBlockHeight: changed.refundableAtBlockHeight ?? terms.refundableAtBlockHeight,
      },
    };
  };
  /** The quote with a redeem script of the wallet's terms but other bytes, its address that script's. */
  const withScript = (script: string): FundingDetailsView => ({
    ...quote,
    details: { ...quote.details, redeemScript: script, payToAddress: htlcPayToAddresses(script, network)[form[1]] },
  });
  return { quote, expectations, withTerms, withScript, redeemScript };
}

function refusedWith(fault: UnsafeFundingFault, call: () => unknown): void {
  assert.throws(call, (error: unknown) => {
    assert.ok(error instanceof UnsafeFundingDetails, `a refusal, not ${String(error)}`);
    assert.equal(error.fault, fault, error.message);
    return true;
  });
}

function otherNetworkAddress(redeemScript: string, network: Network, formName: 'p2wsh' | 'p2shP2wsh' | 'p2sh') {
  const own = htlcPayToAddresses(redeemScript, network)[formName];
  // Testnet and simnet share their base58 versions: a P2SH address of one is the same text on the other.
  const other = NETWORKS.map((each) => htlcPayToAddresses(redeemScript, each)[formName]).find((each) => each !== own);
  assert.ok(other !== undefined);
  return other;
}

/** A P2TR address (witness version 1, bech32m) of `network`: no key hash in it. */
function taprootAddress(network: Network): string {
  return bitcoinAddress.toBech32(Buffer.from(hex32('a taproot key'), 'hex'), 1, bitcoinJsNetwork(network).bech32);
}

describe('bitcoinFundingAddress: the address a wallet pays, rebuilt by the wallet', () => {
  for (const network of NETWORKS) {
    for (const form of FORMS) {
      describe(`${network}, ${form[0]}`, () => {
        test('an honest quote answers its address, its satoshis and its refund height, synchronously', () => {
          const { quote, expectations, redeemScript } = honest(network, form);
          const answer = bitcoinFundingAddress(quote, expectations);
          assert.ok(!(answer instanceof Promise));
          assert.deepEqual(answer, {
            address: quote.details.payToAddress,
            amount: 50_000n,
            refundableAtBlockHeight: CURRENT_HEIGHT + DELAY,
          });
          const paid = bitcoinAddress.toOutputScript(answer.address, bitcoinJsNetwork(network));
          assert.deepEqual(Buffer.from(paid), Buffer.from(htlcOutputScript(redeemScript, form[0])));
        });

        test('a P2PKH refund address, an address in capitals, a timelock at the bound and no bound are accepted', () => {
          const legacy = payments.p2pkh({ pubkey: refundKey.publicKey, network: bitcoinJsNetwork(network) }).address!;
          const p2pkh = honest(network, form, legacy);
          assert.equal(bitcoinFundingAddress(p2pkh.quote, p2pkh.expectations).amount, 50_000n);

          const { quote, expectations, withTerms } = honest(network, form);
          const upper = {
            ...quote,
            details: { ...quote.details, payToAddress: quote.details.payToAddress.toUpperCase() },
          };
          if (form[0] === 'p2wsh') {
            assert.equal(bitcoinFundingAddress(upper, expectations).address, quote.details.payToAddress);
          }
          const atBound = withTerms({ refundableAtBlockHeight: CURRENT_HEIGHT + MAX_DELAY });
          assert.equal(
            bitcoinFundingAddress(atBound, expectations).refundableAtBlockHeight,
            CURRENT_HEIGHT + MAX_DELAY,
          );
          const far = withTerms({ refundableAtBlockHeight: CURRENT_HEIGHT + 52_560 });
          const { maxRefundDelayBlocks: _, ...unbounded } = expectations;
          assert.equal(bitcoinFundingAddress(far, unbounded).refundableAtBlockHeight, CURRENT_HEIGHT + 52_560);
          assert.equal(
            bitcoinFundingAddress(quote, { ...expectations, now: quote.expiryTimestampMs - 1 }).amount,
            50_000n,
          );
        });

        test('each hostile variant, one fault at a time, is refused with the fault named', () => {
          const { quote, expectations, withTerms, withScript, redeemScript } = honest(network, form);
          const { details } = quote;
          const refuse = (fault: UnsafeFundingFault, hostile: FundingDetailsView, wallet = expectations) =>
            refusedWith(fault, () => bitcoinFundingAddress(hostile, wallet));

          const anotherScript = redeemScriptOf(network, {
            paymentHash,
            refundAddress: expectations.refundAddress,
            refundableAtBlockHeight: CURRENT_HEIGHT + DELAY + 1,
          });
          refuse('WrongAddress', {
            ...quote,
            details: { ...details, payToAddress: htlcPayToAddresses(anotherScript, network)[form[1]] },
          });
          refuse('WrongAddress', { ...quote, details: { ...details, payToAddress: expectations.refundAddress } });
          refuse('WrongAddress', { ...quote, details: { ...details, payToAddress: taprootAddress(network) } });
          refuse('WrongNetwork', {
            ...quote,
            details: { ...details, payToAddress: otherNetworkAddress(redeemScript, network, form[1]) },
          });
          refuse('WrongPaymentHash', withTerms({ paymentHash: hex32('another invoice') }));
          refuse('WrongRefundKey', withTerms({ refundAddress: p2wpkhAddress(strangerKey, network) }));
          refuse('WrongScript', withScript(`${redeemScript}61`));
          refuse('WrongScript', withScript(`61${redeemScript}`));
          // The height pushed with OP_PUSHDATA1 instead of its minimal push: the same number in other bytes.
          const height = Buffer.from(script.number.encode(CURRENT_HEIGHT + DELAY)).toString('hex');
          const minimal = `67${(height.length / 2).toString(16).padStart(2, '0')}${height}b1`;
          assert.ok(redeemScript.includes(minimal), 'OP_ELSE <height> OP_CHECKLOCKTIMEVERIFY');
          refuse('WrongScript', withScript(redeemScript.replace(minimal, `674c${minimal.slice(2)}`)));
          refuse('WrongScript', { ...quote, details: { ...details, redeemScript: 'zz' } });
          refuse('WrongTimelock', {
            ...quote,
            details: { ...details, refundableAtBlockHeight: CURRENT_HEIGHT + DELAY - 1 },
          });
          refuse('WrongTimelock', withTerms({ refundableAtBlockHeight: CURRENT_HEIGHT }));
          refuse('RefundDelayTooLong', withTerms({ refundableAtBlockHeight: CURRENT_HEIGHT + MAX_DELAY + 1 }));
          refuse('WrongAmount', { ...quote, amount: '0.000500001' });
          refuse('WrongAmount', { ...quote, amount: '0' });
          refuse('WrongAmount', { ...quote, amount: '-0.0005' });
          refuse('WrongAmount', { ...quote, amount: '21000000.00000001' });
          refuse('QuoteExpired', quote, { ...expectations, now: quote.expiryTimestampMs });
          refuse('QuoteExpired', quote, { ...expectations, now: quote.expiryTimestampMs + 60_000 });
        });

        test('a refund address the refund branch cannot pay is refused: no key hash, or another network', () => {
          const { quote, expectations } = honest(network, form);
          const other = NETWORKS.find((each) => bitcoinJsNetwork(each).bech32 !== bitcoinJsNetwork(network).bech32)!;
          const bitcoinNetwork = bitcoinJsNetwork(network);
          const noKeyHash = [
            payments.p2wsh({
              redeem: { output: Buffer.from(quote.details.redeemScript, 'hex') },
              network: bitcoinNetwork,
            }).address!,
            payments.p2sh({
              redeem: payments.p2wpkh({ pubkey: refundKey.publicKey, network: bitcoinNetwork }),
              network: bitcoinNetwork,
            }).address!,
            taprootAddress(network),
            p2wpkhAddress(refundKey, other),
            'not an address',
          ];
          for (const refundAddress of noKeyHash) {
            refusedWith('UnusableRefundAddress', () =>
              bitcoinFundingAddress(quote, { ...expectations, refundAddress }),
            );
          }
        });
      });
    }
  }

  test('garbage where the quote or the wallet gives a value is a refusal, never a TypeError', () => {
    const { quote, expectations } = honest('mainnet', FORMS[0]!);
    const { details } = quote;
    const garbageQuotes: [UnsafeFundingFault, unknown][] = [
      ['MalformedQuote', null],
      ['MalformedQuote', 'a quote'],
      ['MalformedQuote', { ...quote, details: null }],
      ['MalformedQuote', { ...quote, orderId: 7 }],
      ['MalformedQuote', { ...quote, amount: 50_000 }],
      ['MalformedQuote', { ...quote, expiryTimestampMs: String(quote.expiryTimestampMs) }],
      ['WrongScript', { ...quote, details: { ...details, redeemScript: 42 } }],
      ['WrongScript', { ...quote, details: { ...details, redeemScript: '' } }],
      ['WrongScript', { ...quote, details: { ...details, redeemScript: `${details.redeemScript}0` } }],
      ['WrongAddress', { ...quote, details: { ...details, payToAddress: 42 } }],
      ['WrongAddress', { ...quote, details: { ...details, payToAddress: 'bc1qnotanaddress' } }],
      ['WrongAddress', { ...quote, details: { ...details, payToAddress: { toString: () => details.payToAddress } } }],
      [
        'WrongTimelock',
        { ...quote, details: { ...details, refundableAtBlockHeight: String(details.refundableAtBlockHeight) } },
      ],
      [
        'WrongChain',
        { ...quote, details: { unsignedFundingTx: { to: `0x${'11'.repeat(20)}`, data: '0x', value: '1' } } },
      ],
    ];
    for (const [fault, garbage] of garbageQuotes) {
      refusedWith(fault, () => bitcoinFundingAddress(garbage as FundingDetailsView, expectations));
    }
    const garbageExpectations: [UnsafeFundingFault, unknown][] = [
      ['MalformedExpectations', undefined],
      ['MalformedExpectations', { ...expectations, paymentHash: 42 }],
      ['MalformedExpectations', { ...expectations, paymentHash: `0x${paymentHash}` }],
      ['MalformedExpectations', { ...expectations, network: 'regtest' }],
      ['MalformedExpectations', { ...expectations, currentBlockHeight: String(CURRENT_HEIGHT) }],
      ['MalformedExpectations', { ...expectations, currentBlockHeight: Number.NaN }],
      ['MalformedExpectations', { ...expectations, maxRefundDelayBlocks: -1 }],
      ['MalformedExpectations', { ...expectations, maxRefundDelayBlocks: 1.5 }],
      ['MalformedExpectations', { ...expectations, now: 'now' }],
      ['UnusableRefundAddress', { ...expectations, refundAddress: 42 }],
    ];
    for (const [fault, garbage] of garbageExpectations) {
      refusedWith(fault, () => bitcoinFundingAddress(quote, garbage as BitcoinFundingExpectations));
    }
  });

  test('without a clock reading the quote is judged by the time now', () => {
    const { quote, expectations } = honest('mainnet', FORMS[0]!);
    const { now: _, ...withoutNow } = expectations;
    const current = { ...quote, expiryTimestampMs: Date.now() + 60_000 };
    assert.equal(bitcoinFundingAddress(current, withoutNow).amount, 50_000n);
    refusedWith('QuoteExpired', () =>
      bitcoinFundingAddress({ ...current, expiryTimestampMs: Date.now() - 1 }, withoutNow),
    );
  });
});
