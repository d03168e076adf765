/**
 * Getting a Bitcoin refund with the service gone: a user asks a real service for a quote in each HTLC form, checks
 * it and keeps its rescue file (`bitcoinRescueFile`) before paying the HTLC on the Bitcoin node stand-in. The
 * service is then stopped (its port no longer answers), and from the rescue file and the node's Esplora alone the
 * user lists the HTLC's coins (`esploraOutputs`), builds the refund (`bitcoinRescueRefund`), signs it with the
 * refund key, and sends it once the chain reaches the refund height: bitcore-lib's script interpreter (a second
 * implementation) accepts the spend, the node mines it and the coins are back at the refund address. A rescue
 * file edited since (another refund key, another script, another height or network) and an Esplora that lies or
 * answers garbage are refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { payments, Transaction } from 'bitcoinjs-lib';
import {
  bitcoinFundingAddress,
  bitcoinRescueFile,
  bitcoinRescueRefund,
  createLnswapClient,
  esploraOutputs,
  esploraTransactionsHex,
  finalizeBitcoinRefund,
  UnsafeFundingDetails,
  type BitcoinRescueFile,
  type EsploraOutput,
  type UnsafeFundingFault,
} from '../../src/client/index.js';
import { buildHtlcRedeemScript, htlcPayToAddresses, parseHtlcRedeemScript } from '../../src/domain/bitcoin.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import {
  buildPayment,
  htlcOutputScript,
  p2wpkhAddress,
  psbtSigner,
  scriptError,
  walletKey,
  type HtlcForm,
  type WalletKey,
} from '../support/bitcoin-wallet.js';
import { makerTerms, runBot } from '../support/e2e/bots.js';
import { BITCOIN_VIEW, hex32 } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { addProvider, startTestService, type TestService } from '../support/ws/harness.js';

const TIMELOCK_BLOCKS = 24;
/** Each form's order opens its refund a few blocks after the one before, so that each refund is tried early first. */
const timelockOf = (index: number) => TIMELOCK_BLOCKS + 4 * index;
const FORMS: readonly { form: HtlcForm; maker: 'p2wsh' | 'p2shP2wsh' | 'p2sh'; refundTo: 'p2wpkh' | 'p2pkh' }[] = [
  { form: 'p2wsh', maker: 'p2wsh', refundTo: 'p2wpkh' },
  { form: 'p2sh-p2wsh', maker: 'p2shP2wsh', refundTo: 'p2wpkh' },
  { form: 'p2sh', maker: 'p2sh', refundTo: 'p2pkh' },
];

const userKey = walletKey(hex32('rescue user wallet key'));
const refundKey = walletKey(hex32('rescue user refund key'));
const strangerKey = walletKey(hex32('rescue stranger key'));
const claimPrivateKey = hex32('rescue maker claim key');

function refundAddressOf(kind: 'p2wpkh' | 'p2pkh', key: WalletKey): string {
  return kind === 'p2wpkh' ? p2wpkhAddress(key, 'mainnet') : payments.p2pkh({ pubkey: key.publicKey }).address!;
}

/**
 * Bitcoin Core's IsFinalTx, which the node stand-in does not apply: a transaction locked to a height enters the
 * block at `height` only when its lock time is below that height (or every input's sequence is final).
 */
function isFinalAt(hex: string, height: number): boolean {
  const tx = Transaction.fromHex(hex);
  return tx.locktime < height || tx.ins.every((input) => input.sequence === 0xffffffff);
}

function refusedWith(fault: UnsafeFundingFault, error: unknown): void {
  assert.ok(error instanceof UnsafeFundingDetails, `a refusal, not ${String(error)}`);
  assert.equal(error.fault, fault, error.message);
}

interface PaidOrder {
  readonly form: HtlcForm;
  /** Where the rescue file was saved. */
  readonly file: string;
  readonly amount: bigint;
  readonly refundAddress: string;
  readonly preimage: string;
}

describe('a Bitcoin refund from the rescue file and an Esplora alone, the service stopped', () => {
  let chain: BitcoinTestChain;
  let node: TestBitcoinNode;
  let harness: TestService;
  let directory: string;
  let serviceUrl: string;
  const paid: PaidOrder[] = [];

  async function esploraFeeRate(): Promise<number> {
    const estimates = (await (await fetch(`${node.esploraUrl}/fee-estimates`)).json()) as Record<string, number>;
    return estimates['2']!;
  }

  before(async () => {
    chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
    const coins = FORMS.map(() => chain.mine({ coinbaseTo: p2wpkhAddress(userKey, 'mainnet') }).txs[0]!);
    node = await startTestBitcoinNode(chain, { feeRate: 9 });
    harness = await startTestService('sqlite');
    serviceUrl = harness.service.url;
    directory = mkdtempSync(join(tmpdir(), 'lnswap-rescue-'));
    const client = createLnswapClient({ url: serviceUrl, timeoutMs: 5_000 });
    for (const [index, { form, maker, refundTo }] of FORMS.entries()) {
      const keys = await addProvider(harness.fresh.store, `rescue-${form}`);
      const terms = {
        ...makerTerms(`rescue-${form}`, 100n, 600_000),
        claimPrivateKey,
        timelockBlocks: timelockOf(index),
      };
      const running = await runBot(serviceUrl, keys, { ...terms, htlcAddress: maker });
      const { invoice, paymentHash, preimage } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 40_000n + BigInt(index),
        expirySeconds: 7_200,
      });
      const refundAddress = refundAddressOf(refundTo, refundKey);
      const quote = await client.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress });
      running.bot.close();
      // What the wallet checks and keeps before it pays: the address it derived, and the rescue file.
      const expectations = {
        paymentHash,
        refundAddress,
        network: 'mainnet' as const,
        currentBlockHeight: chain.tipHeight,
        maxRefundDelayBlocks: 144,
      };
      const { address, amount } = bitcoinFundingAddress(quote, expectations);
      const file = join(directory, `lnswap-rescue-${quote.orderId}.json`);
      writeFileSync(file, JSON.stringify(bitcoinRescueFile(quote, expectations), null, 2));
      const coinbase = coins[index]!;
      const funding = buildPayment(
        userKey,
        { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value },
        [{ address, amount }],
        'mainnet',
      );
      const sent = await fetch(`${node.esploraUrl}/tx`, { method: 'POST', body: funding.toHex() });
      assert.equal(await sent.text(), funding.getId());
      paid.push({ form, file, amount, refundAddress, preimage });
    }
    client.close();
    chain.mine();
    await harness.close();
  });
  after(async () => {
    await node?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  function rescueOf(order: PaidOrder): BitcoinRescueFile {
    return JSON.parse(readFileSync(order.file, 'utf8')) as BitcoinRescueFile;
  }

  test('the rescue file holds the HTLC and the refund terms, and no secret', () => {
    for (const order of paid) {
      const text = readFileSync(order.file, 'utf8');
      const rescue = rescueOf(order);
      assert.deepEqual(Object.keys(rescue).sort(), [
        'address',
        'network',
        'orderId',
        'redeemScript',
        'refundAddress',
        'refundableAtBlockHeight',
      ]);
      assert.equal(rescue.refundAddress, order.refundAddress);
      assert.equal(rescue.refundableAtBlockHeight, BITCOIN_VIEW.blockHeight + timelockOf(paid.indexOf(order)));
      assert.equal(parseHtlcRedeemScript(rescue.redeemScript)?.refundableAtBlockHeight, rescue.refundableAtBlockHeight);
      for (const secret of [order.preimage, claimPrivateKey, Buffer.from(refundKey.privateKey).toString('hex')]) {
        assert.ok(!text.includes(secret), 'no secret in the file');
      }
    }
  });

  test('the service is gone: its port answers nothing', async () => {
    await assert.rejects(fetch(`${serviceUrl}/api/markets`));
  });

  for (const { form } of FORMS) {
    test(`${form}: refunded from the file and the Esplora, mined once the chain reaches the refund height`, async () => {
      const order = paid.find((each) => each.form === form)!;
      const rescue = rescueOf(order);
      const outputs = await esploraOutputs(node.esploraUrl, rescue.address);
      assert.deepEqual(
        outputs.map((output) => [output.value, output.status.confirmed]),
        [[Number(order.amount), true]],
      );
      const fundingTransactionsHex =
        form === 'p2sh'
          ? await esploraTransactionsHex(
              node.esploraUrl,
              outputs.map((output) => output.txid),
            )
          : undefined;
      const feeTokensPerVirtualByte = await esploraFeeRate();
      const refund = bitcoinRescueRefund(rescue, {
        outputs,
        feeTokensPerVirtualByte,
        ...(fundingTransactionsHex === undefined ? {} : { fundingTransactionsHex }),
      });
      assert.equal(refund.form, form);
      assert.equal(refund.lockTime, rescue.refundableAtBlockHeight);
      assert.equal(refund.amount + refund.fee, order.amount);
      refund.psbt.signAllInputs(psbtSigner(refundKey));
      const signedHex = finalizeBitcoinRefund(refund.psbt);
      const spent = { script: htlcOutputScript(rescue.redeemScript, form), amount: order.amount };
      assert.equal(scriptError(signedHex, 0, spent), '');
      const tx = Transaction.fromHex(signedHex);
      assert.ok(Number(refund.fee) / tx.virtualSize() >= feeTokensPerVirtualByte, 'at least the rate asked');

      // Not before the refund height: no block below it may hold the refund.
      assert.ok(chain.tipHeight < rescue.refundableAtBlockHeight);
      assert.equal(isFinalAt(signedHex, chain.tipHeight + 1), false);
      while (chain.tipHeight < rescue.refundableAtBlockHeight) chain.mine();
      assert.equal(isFinalAt(signedHex, chain.tipHeight + 1), true);
      const sent = await fetch(`${node.esploraUrl}/tx`, { method: 'POST', body: signedHex });
      assert.equal(await sent.text(), tx.getId());
      const block = chain.mine();
      assert.ok(block.txs.some((mined) => mined.getId() === tx.getId()));
      assert.deepEqual(await esploraOutputs(node.esploraUrl, rescue.address), []);
      const back = await esploraOutputs(node.esploraUrl, rescue.refundAddress);
      assert.deepEqual(
        back.filter((output) => output.txid === tx.getId()).map((output) => output.value),
        [Number(refund.amount)],
      );
    });
  }

  test('a rescue file edited since it was written is refused before anything is built', async () => {
    const order = paid.find((each) => each.form === 'p2wsh')!;
    const rescue = rescueOf(order);
    const outputs: EsploraOutput[] = [
      { txid: hex32('an outpoint'), vout: 0, value: Number(order.amount), status: { confirmed: true } },
    ];
    const refuse = (fault: UnsafeFundingFault, edited: unknown) => {
      assert.throws(
        () => bitcoinRescueRefund(edited as BitcoinRescueFile, { outputs, feeTokensPerVirtualByte: 5 }),
        (error: unknown) => {
          refusedWith(fault, error);
          return true;
        },
      );
    };
    const terms = parseHtlcRedeemScript(rescue.redeemScript)!;
    const stranger = p2wpkhAddress(strangerKey, 'mainnet');
    const strangerHash = Buffer.from(payments.p2wpkh({ address: stranger }).hash!).toString('hex');
    const strangerScript = buildHtlcRedeemScript({ ...terms, refundPublicKeyHash: strangerHash });

    refuse('WrongRefundKey', { ...rescue, refundAddress: stranger });
    refuse('WrongAddress', { ...rescue, redeemScript: strangerScript });
    refuse('WrongRefundKey', {
      ...rescue,
      redeemScript: strangerScript,
      address: htlcPayToAddresses(strangerScript, 'mainnet').p2wsh,
    });
    refuse('WrongScript', { ...rescue, redeemScript: `${rescue.redeemScript}61` });
    refuse('WrongTimelock', { ...rescue, refundableAtBlockHeight: rescue.refundableAtBlockHeight - 1 });
    refuse('UnusableRefundAddress', { ...rescue, network: 'testnet' });
    refuse('WrongNetwork', {
      ...rescue,
      network: 'testnet',
      refundAddress: p2wpkhAddress(refundKey, 'testnet'),
    });
    refuse('UnusableRefundAddress', { ...rescue, refundAddress: rescue.address });
    refuse('MalformedRescueFile', null);
    refuse('MalformedRescueFile', { ...rescue, refundableAtBlockHeight: String(rescue.refundableAtBlockHeight) });
    refuse('MalformedRescueFile', { ...rescue, network: 'regtest' });
    refuse('MalformedRescueFile', { ...rescue, redeemScript: 42 });
  });

  describe('an Esplora that lies or answers garbage', () => {
    let liar: Server;
    let liarUrl: string;
    const answers = new Map<string, [status: number, body: string]>();

    before(async () => {
      liar = createServer((request, response) => {
        const [status, body] = answers.get(request.url ?? '') ?? [404, 'Not found'];
        response.writeHead(status).end(body);
      });
      await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
      liarUrl = `http://127.0.0.1:${(liar.address() as AddressInfo).port}/api`;
    });
    after(async () => {
      const closed = new Promise<void>((resolve) => liar.close(() => resolve()));
      liar.closeAllConnections();
      await closed;
    });

    test('garbage for the outputs or a transaction is a refusal, not a crash', async () => {
      const address = rescueOf(paid[0]!).address;
      const path = `/api/address/${address}/utxo`;
      const output = { txid: hex32('x'), vout: 0, value: 1_000, status: { confirmed: true } };
      const garbage: [number, string][] = [
        [200, 'not json'],
        [200, 'null'],
        [200, '{"txid":"x"}'],
        [200, '[42]'],
        [200, JSON.stringify([{ ...output, value: '1000' }])],
        [200, JSON.stringify([{ ...output, value: 1.5 }])],
        [200, JSON.stringify([{ ...output, vout: -1 }])],
        [200, JSON.stringify([{ ...output, txid: 'zz' }])],
        [200, JSON.stringify([{ ...output, status: null }])],
        [200, JSON.stringify([{ ...output, status: { confirmed: 'yes' } }])],
        [500, 'Internal Server Error'],
        [200, 'x'.repeat(1_000_000)],
      ];
      for (const answer of garbage) {
        answers.set(path, answer);
        refusedWith('MalformedOutputs', await esploraOutputs(liarUrl, address).catch((error: unknown) => error));
      }
      answers.set(path, [200, JSON.stringify([output])]);
      assert.deepEqual(await esploraOutputs(liarUrl, address), [output]);

      // A real transaction, but not the one asked for.
      const funding = chain.blocks[0]!.txs[0]!;
      answers.set(`/api/tx/${hex32('another')}/hex`, [200, funding.toHex()]);
      refusedWith(
        'MalformedOutputs',
        await esploraTransactionsHex(liarUrl, [hex32('another')]).catch((error: unknown) => error),
      );
    });

    /** The HTLC at `address` funded again with `amount`, confirmed: its one unspent output as the Esplora lists it. */
    async function fundAgain(address: string, amount: bigint): Promise<EsploraOutput> {
      const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(userKey, 'mainnet') }).txs[0]!;
      const coin = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
      chain.submit(buildPayment(userKey, coin, [{ address, amount }], 'mainnet').toHex());
      chain.mine();
      const [output, ...more] = await esploraOutputs(node.esploraUrl, address);
      assert.ok(output !== undefined && more.length === 0 && output.value === Number(amount));
      return output;
    }

    test('outputs told with a lower value: a P2SH refund is refused, a segwit one is one no node takes', async () => {
      const legacy = rescueOf(paid.find((each) => each.form === 'p2sh')!);
      const legacyOutput = await fundAgain(legacy.address, 100_000n);
      const fundingTransactionsHex = await esploraTransactionsHex(node.esploraUrl, [legacyOutput.txid]);
      const refund =
        (outputs: EsploraOutput[], hex = fundingTransactionsHex) =>
        () =>
          bitcoinRescueRefund(legacy, { outputs, feeTokensPerVirtualByte: 5, fundingTransactionsHex: hex });
      // A legacy signature does not commit to the value: 90,000 sat told away would go to the miners.
      assert.throws(refund([{ ...legacyOutput, value: 10_000 }]), (error: unknown) => {
        refusedWith('MalformedOutputs', error);
        return true;
      });
      assert.throws(refund([legacyOutput], {}), (error: unknown) => {
        refusedWith('MissingFundingTransaction', error);
        return true;
      });
      assert.equal(refund([legacyOutput])().amount + refund([legacyOutput])().fee, 100_000n);

      const segwit = rescueOf(paid.find((each) => each.form === 'p2wsh')!);
      const segwitOutput = await fundAgain(segwit.address, 100_000n);
      const signedFor = (value: number): string => {
        const { psbt } = bitcoinRescueRefund(segwit, {
          outputs: [{ ...segwitOutput, value }],
          feeTokensPerVirtualByte: 5,
        });
        psbt.signAllInputs(psbtSigner(refundKey));
        return finalizeBitcoinRefund(psbt);
      };
      const spent = { script: htlcOutputScript(segwit.redeemScript, 'p2wsh'), amount: 100_000n };
      assert.equal(scriptError(signedFor(100_000), 0, spent), '');
      assert.notEqual(scriptError(signedFor(10_000), 0, spent), '', 'the signature commits to the value told');
    });
  });
});
