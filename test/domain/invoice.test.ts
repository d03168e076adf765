import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { decode, encode, sign } from 'bolt11';
import { decodeInvoice, hashInvoice, preimageMatchesPaymentHash } from '../../src/domain/invoice.js';
import { makeInvoice, TEST_NODE_PRIVATE_KEY, TEST_NODE_PUBLIC_KEY, withSignature } from '../support/invoices.js';

/** The key every example invoice of the BOLT11 specification is signed with. */
const SPEC_PAYEE = '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad';
const SPEC_PAYMENT_HASH = '0001020304050607080900010203040506070809000102030405060708090102';
const SPEC_TIMESTAMP_MS = 1_496_314_658_000;

const SPEC_VALID = [
  {
    name: 'donation of any amount, default expiry',
    invoice:
      'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq8rkx3yf5tcsyz3d73gafnh3cax9rn449d9p5uxz9ezhhypd0elx87sjle52x86fux2ypatgddc6k63n7erqz25le42c4u4ecky03ylcqca784w',
    expected: {
      network: 'mainnet',
      paymentHash: SPEC_PAYMENT_HASH,
      timestampMs: SPEC_TIMESTAMP_MS,
      expiresAtMs: SPEC_TIMESTAMP_MS + 3_600_000,
    },
  },
  {
    name: '2500u within one minute',
    invoice:
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
    expected: {
      network: 'mainnet',
      paymentHash: SPEC_PAYMENT_HASH,
      amountMillisatoshis: 250_000_000n,
      timestampMs: SPEC_TIMESTAMP_MS,
      expiresAtMs: SPEC_TIMESTAMP_MS + 60_000,
    },
  },
  {
    name: 'testnet with a fallback address',
    invoice:
      'lntb20m1pvjluezhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfpp3x9et2e20v6pu37c5d9vax37wxq72un98kmzzhznpurw9sgl2v0nklu2g4d0keph5t7tj9tcqd8rexnd07ux4uv2cjvcqwaxgj7v4uwn5wmypjd5n69z2xm3xgksg28nwht7f6zspwp3f9t',
    expected: {
      network: 'testnet',
      paymentHash: SPEC_PAYMENT_HASH,
      amountMillisatoshis: 2_000_000_000n,
      timestampMs: SPEC_TIMESTAMP_MS,
      expiresAtMs: SPEC_TIMESTAMP_MS + 3_600_000,
    },
  },
  {
    name: 'amount in pico-BTC, one week expiry, route hint',
    invoice:
      'lnbc9678785340p1pwmna7lpp5gc3xfm08u9qy06djf8dfflhugl6p7lgza6dsjxq454gxhj9t7a0sd8dgfkx7cmtwd68yetpd5s9xar0wfjn5gpc8qhrsdfq24f5ggrxdaezqsnvda3kkum5wfjkzmfqf3jkgem9wgsyuctwdus9xgrcyqcjcgpzgfskx6eqf9hzqnteypzxz7fzypfhg6trddjhygrcyqezcgpzfysywmm5ypxxjemgw3hxjmn8yptk7untd9hxwg3q2d6xjcmtv4ezq7pqxgsxzmnyyqcjqmt0wfjjq6t5v4khxxqyjw5qcqp2rzjq0gxwkzc8w6323m55m4jyxcjwmy7stt9hwkwe2qxmy8zpsgg7jcuwz87fcqqeuqqqyqqqqlgqqqqn3qq9qn07ytgrxxzad9hc4xt3mawjjt8znfv8xzscs7007v9gh9j569lencxa8xeujzkxs0uamak9aln6ez02uunw6rd2ht2sqe4hz8thcdagpleym0j',
    expected: {
      network: 'mainnet',
      paymentHash: '462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f',
      amountMillisatoshis: 967_878_534n,
      timestampMs: 1_572_468_703_000,
      expiresAtMs: 1_572_468_703_000 + 604_800_000,
    },
  },
  {
    name: 'payment secret and feature bits',
    invoice:
      'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeessp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqpqsq67gye39hfg3zd8rgc80k32tvy9xk2xunwm5lzexnvpx6fd77en8qaq424dxgt56cag2dpt359k3ssyhetktkpqh24jqnjyw6uqd08sgptq44qu',
    expected: {
      network: 'mainnet',
      paymentHash: SPEC_PAYMENT_HASH,
      amountMillisatoshis: 2_500_000_000n,
      timestampMs: SPEC_TIMESTAMP_MS,
      expiresAtMs: SPEC_TIMESTAMP_MS + 3_600_000,
    },
  },
] as const;

const SPEC_INVALID = {
  'bech32 checksum is invalid':
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrnt',
  'malformed bech32 (no 1)':
    'pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
  'malformed bech32 (mixed case)':
    'LNBC2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
  'signature is not recoverable':
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaxtrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspk28uwq',
  'string is too short':
    'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6na6hlh',
  'invalid multiplier':
    'lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpujr6jxr9gq9pv6g46y7d20jfkegkg4gljz2ea2a3m9lmvvr95tq2s0kvu70u3axgelz3kyvtp2ywwt0y8hkx2869zq5dll9nelr83zzqqpgl2zg',
  'sub-millisatoshi precision':
    'lnbc2500000001p1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu7hqtk93pkf7sw55rdv4k9z2vj050rxdr6za9ekfs3nlt5lr89jqpdmxsmlj9urqumg0h9wzpqecw7th56tdms40p2ny9q4ddvjsedzcplva53s',
};

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('decodeInvoice on the BOLT11 specification examples', () => {
  for (const { name, invoice, expected } of SPEC_VALID) {
    test(`decodes: ${name}`, () => {
      assert.deepEqual(decodeInvoice(invoice), { ...expected, payeePublicKey: SPEC_PAYEE });
    });
  }

  test('decodes an all upper-case invoice', () => {
    const [, , , , modern] = SPEC_VALID;
    assert.deepEqual(decodeInvoice(modern.invoice.toUpperCase()), { ...modern.expected, payeePublicKey: SPEC_PAYEE });
  });

  for (const [name, invoice] of Object.entries(SPEC_INVALID)) {
    test(`refuses: ${name}`, () => {
      assert.equal(decodeInvoice(invoice), undefined);
    });
  }
});

describe('decodeInvoice on invoices signed by the test node', () => {
  const preimage = '5a'.repeat(32);
  const timestampSeconds = 1_700_000_000;

  for (const [network, prefix] of [
    ['mainnet', 'lnbc'],
    ['testnet', 'lntb'],
    ['simnet', 'lnbcrt'],
  ] as const) {
    test(`${prefix} decodes as ${network}`, () => {
      const made = makeInvoice({ network, amountSatoshis: 35_590n, preimage, timestampSeconds, expirySeconds: 900 });
      assert.ok(made.invoice.startsWith(`${prefix}355900n1`));
      assert.deepEqual(decodeInvoice(made.invoice), {
        network,
        paymentHash: made.paymentHash,
        amountMillisatoshis: 35_590_000n,
        timestampMs: timestampSeconds * 1000,
        expiresAtMs: (timestampSeconds + 900) * 1000,
        payeePublicKey: TEST_NODE_PUBLIC_KEY,
      });
    });
  }

  test('lnsb is simnet too', () => {
    const unsigned = encode(
      {
        network: { bech32: 'sb', pubKeyHash: 0x3f, scriptHash: 0x7b, validWitnessVersions: [0] },
        timestamp: timestampSeconds,
        tags: [
          { tagName: 'payment_hash', data: '11'.repeat(32) },
          { tagName: 'description', data: 'simnet' },
        ],
      },
      false,
    );
    const invoice = sign(unsigned, TEST_NODE_PRIVATE_KEY).paymentRequest ?? '';
    assert.ok(invoice.startsWith('lnsb1'));
    assert.equal(decodeInvoice(invoice)?.network, 'simnet');
  });

  test('refuses a network it does not serve (signet)', () => {
    const unsigned = encode(
      {
        network: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0] },
        timestamp: timestampSeconds,
        tags: [
          { tagName: 'payment_hash', data: '11'.repeat(32) },
          { tagName: 'description', data: 'signet' },
        ],
      },
      false,
    );
    const invoice = sign(unsigned, TEST_NODE_PRIVATE_KEY).paymentRequest ?? '';
    assert.ok(invoice.startsWith('lntbs1'));
    assert.equal(decodeInvoice(invoice), undefined);
  });

  test('an invoice without an amount or expiry field has no amount and expires after 3600 s', () => {
    const made = makeInvoice({ network: 'mainnet', preimage, timestampSeconds });
    const decoded = decodeInvoice(made.invoice);
    assert.equal(decoded?.amountMillisatoshis, undefined);
    assert.equal(decoded && 'amountMillisatoshis' in decoded, false);
    assert.equal(decoded?.expiresAtMs, (timestampSeconds + 3600) * 1000);
  });

  test('the same spec signs the same invoice; a random preimage gives another payment hash', () => {
    const spec = { network: 'testnet', amountSatoshis: 1000n, preimage, timestampSeconds } as const;
    assert.equal(makeInvoice(spec).invoice, makeInvoice(spec).invoice);
    const first = makeInvoice({ network: 'testnet' });
    const second = makeInvoice({ network: 'testnet' });
    assert.notEqual(first.paymentHash, second.paymentHash);
    assert.ok(preimageMatchesPaymentHash(first.preimage, first.paymentHash));
  });

  test('changing any one character breaks the invoice', () => {
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 5000n, preimage, timestampSeconds });
    const dataStart = invoice.lastIndexOf('1') + 1;
    fc.assert(
      fc.property(
        fc.integer({ min: dataStart, max: invoice.length - 1 }),
        fc.constantFrom(...'qpzry9x8gf2tvdw0s3jn54khce6mua7l'),
        (index, replacement) => {
          fc.pre(invoice[index] !== replacement);
          const tampered = `${invoice.slice(0, index)}${replacement}${invoice.slice(index + 1)}`;
          assert.equal(decodeInvoice(tampered), undefined);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: 300 },
    );
  });
});

describe('decodeInvoice checks the signature', () => {
  const preimage = '77'.repeat(32);
  const timestampSeconds = 1_700_000_000;

  function forgedSignature(invoice: string): string {
    const { signature = '' } = decode(invoice);
    const flippedLastByte = (Number.parseInt(signature.slice(-2), 16) ^ 0x01).toString(16).padStart(2, '0');
    return `${signature.slice(0, -2)}${flippedLastByte}`;
  }

  function highSForm(invoice: string): { signature: string; recoveryFlag: number } {
    const { signature = '', recoveryFlag = 0 } = decode(invoice);
    const s = BigInt(`0x${signature.slice(64)}`);
    return {
      signature: `${signature.slice(0, 64)}${(SECP256K1_ORDER - s).toString(16).padStart(64, '0')}`,
      recoveryFlag: recoveryFlag ^ 1,
    };
  }

  test('a re-signed invoice with a valid checksum decodes unchanged', () => {
    const { invoice } = makeInvoice({
      network: 'mainnet',
      amountSatoshis: 1n,
      preimage,
      timestampSeconds,
      namePayee: true,
    });
    const { signature = '', recoveryFlag = 0 } = decode(invoice);
    assert.equal(withSignature(invoice, signature, recoveryFlag), invoice);
    assert.equal(decodeInvoice(invoice)?.payeePublicKey, TEST_NODE_PUBLIC_KEY);
  });

  test('a tampered signature fails against the payee the invoice names', () => {
    const { invoice } = makeInvoice({
      network: 'mainnet',
      amountSatoshis: 1n,
      preimage,
      timestampSeconds,
      namePayee: true,
    });
    const { recoveryFlag = 0 } = decode(invoice);
    assert.equal(decodeInvoice(withSignature(invoice, forgedSignature(invoice), recoveryFlag)), undefined);
  });

  test('without a named payee, a tampered signature no longer speaks for the test node', () => {
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 1n, preimage, timestampSeconds });
    const { recoveryFlag = 0 } = decode(invoice);
    const decoded = decodeInvoice(withSignature(invoice, forgedSignature(invoice), recoveryFlag));
    assert.notEqual(decoded?.payeePublicKey, TEST_NODE_PUBLIC_KEY);
  });

  test('a high-S signature is refused when the key must be recovered', () => {
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 1n, preimage, timestampSeconds });
    const { signature, recoveryFlag } = highSForm(invoice);
    assert.equal(decodeInvoice(withSignature(invoice, signature, recoveryFlag)), undefined);
  });

  test('a high-S signature is accepted when the invoice names its payee', () => {
    const { invoice } = makeInvoice({
      network: 'mainnet',
      amountSatoshis: 1n,
      preimage,
      timestampSeconds,
      namePayee: true,
    });
    const { signature, recoveryFlag } = highSForm(invoice);
    assert.equal(decodeInvoice(withSignature(invoice, signature, recoveryFlag))?.payeePublicKey, TEST_NODE_PUBLIC_KEY);
  });
});

describe('decodeInvoice never throws', () => {
  test('on garbage', () => {
    for (const input of [
      '',
      'ln',
      'lnbc',
      'lnbc1',
      'lnbc1qqqqqqqq',
      'bitcoin:abc',
      '\u0000',
      'lnbc1'.repeat(100),
      '💥',
    ]) {
      assert.equal(decodeInvoice(input), undefined, JSON.stringify(input));
    }
    for (const input of [null, undefined, 42, {}, []]) {
      assert.equal(decodeInvoice(input as unknown as string), undefined);
    }
  });

  test('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (input) => {
        assert.equal(decodeInvoice(`lnbc${input}`), undefined);
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('refuses invoices longer than a QR code holds, however valid', () => {
    function invoiceWithRouteHints(count: number): string {
      const route = {
        pubkey: TEST_NODE_PUBLIC_KEY,
        short_channel_id: '0102030405060708',
        fee_base_msat: 1,
        fee_proportional_millionths: 20,
        cltv_expiry_delta: 40,
      };
      const unsigned = encode(
        {
          network: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
          timestamp: 1_700_000_000,
          tags: [
            { tagName: 'payment_hash', data: '11'.repeat(32) },
            { tagName: 'description', data: 'long' },
            ...Array.from({ length: count }, () => ({ tagName: 'routing_info', data: [route] })),
          ],
        },
        false,
      );
      return sign(unsigned, TEST_NODE_PRIVATE_KEY).paymentRequest ?? '';
    }
    const long = invoiceWithRouteHints(100);
    assert.ok(long.length > 7089);
    assert.equal(decode(long).payeeNodeKey, TEST_NODE_PUBLIC_KEY);
    assert.equal(decodeInvoice(long), undefined);
    assert.equal(decodeInvoice(invoiceWithRouteHints(10))?.payeePublicKey, TEST_NODE_PUBLIC_KEY);
  });
});

describe('hashInvoice', () => {
  test('is SHA-256 of the string as sent, lowercase hex', () => {
    assert.equal(hashInvoice(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(hashInvoice('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('does not normalize case', () => {
    const { invoice } = makeInvoice({ network: 'mainnet' });
    assert.notEqual(hashInvoice(invoice), hashInvoice(invoice.toUpperCase()));
    assert.match(hashInvoice(invoice), /^[0-9a-f]{64}$/);
  });
});

describe('preimageMatchesPaymentHash', () => {
  const zeroPreimage = '00'.repeat(32);
  const zeroPreimageHash = '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925';

  test('accepts the preimage of the hash, in any case', () => {
    assert.ok(preimageMatchesPaymentHash(zeroPreimage, zeroPreimageHash));
    assert.ok(preimageMatchesPaymentHash(zeroPreimage, zeroPreimageHash.toUpperCase()));
    const made = makeInvoice({ network: 'simnet' });
    assert.ok(preimageMatchesPaymentHash(made.preimage.toUpperCase(), made.paymentHash));
  });

  test('refuses another preimage', () => {
    assert.equal(preimageMatchesPaymentHash('01'.repeat(32), zeroPreimageHash), false);
  });

  test('refuses a preimage that is not 64 hex digits', () => {
    for (const preimage of ['', '00'.repeat(31), '00'.repeat(33), `0x${'00'.repeat(31)}`, `${'00'.repeat(31)}zz`]) {
      assert.equal(preimageMatchesPaymentHash(preimage, zeroPreimageHash), false, preimage);
    }
  });
});
