import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClnRestBackend } from '../../../src/chains/lightning/cln-rest-backend.js';
import { LightningNodeError } from '../../../src/chains/lightning/lightning-backend.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import {
  CLN_STAND_IN_BLOCK_HEIGHT,
  CLN_STAND_IN_PUBLIC_KEY,
  startClnRestStandIn,
} from '../../support/lightning/cln-rest-stand-in.js';
import { makeCaSignedCertificate, type CaSignedCertificate } from '../../support/lightning/self-signed-certificate.js';
import { SimulatedPayments } from '../../support/lightning/simulated-payments.js';
import { describeBackendAgainstStandIn } from '../../support/lightning/backend-suite.js';

/** Runes are base64url strings; this one is only a shared secret to the stand-in. */
const RUNE = 'tU-RLjMiDpY2U0o3W1oFowar36RFGpWloPbW9-RuZdo9MyZpZD0wMjRiOWE';

describeBackendAgainstStandIn({
  title: 'Core Lightning REST backend against the stand-in clnrest',
  startStandIn: (payments) => startClnRestStandIn(payments, RUNE),
  connect: ({ node, certificatePem, credential, timeoutMs, maxResponseBytes, files }) =>
    new ClnRestBackend({
      url: node.url,
      certificatePem: certificatePem ?? node.certificatePem,
      rune: credential ?? RUNE,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      ...(files === undefined ? {} : { certificateFile: files.certificate, runeFile: files.credential }),
    }),
  standInPublicKey: CLN_STAND_IN_PUBLIC_KEY,
  standInBlockHeight: CLN_STAND_IN_BLOCK_HEIGHT,
  balanceTitle: 'the spendable balance counts active, connected channels only',
  feeLimitReason: 'fee-limit-exceeded',
  lookedUpFailureReason: 'error',
  inTransitionMessage: 'pay answers a hash in progress with PAY_IN_PROGRESS',
  alreadyPaidMessage: 'pay answers an invoice already paid with the first payment',
  credentialTitle: 'a wrong or missing rune is refused as unauthorized, and the error does not carry it',
  wrongCredentials: ['zz' + RUNE.slice(2), ''],
  secretPartOf: (rune) => rune.slice(2),
});

describe("clnrest's default certificate, signed by the node's own CA and naming only the host cln", () => {
  let tls: CaSignedCertificate;
  let node: RunningStandIn;
  const pinning = (certificatePem: string) => new ClnRestBackend({ url: node.url, certificatePem, rune: RUNE });

  before(async () => {
    tls = makeCaSignedCertificate();
    node = await startClnRestStandIn(new SimulatedPayments(), RUNE, tls);
  });
  after(() => node.close());

  test('pinning the CA (ca.pem) or the certificate itself (server.pem) is talked to, at any address', async () => {
    assert.equal((await pinning(tls.caPem).getInfo()).publicKey, CLN_STAND_IN_PUBLIC_KEY);
    assert.equal((await pinning(tls.certificatePem).getInfo()).publicKey, CLN_STAND_IN_PUBLIC_KEY);
  });

  test("another node's CA or server certificate is refused", async () => {
    const other = makeCaSignedCertificate();
    for (const pinned of [other.caPem, other.certificatePem]) {
      await assert.rejects(
        pinning(pinned).getInfo(),
        (error: unknown) => error instanceof LightningNodeError && error.fault === 'certificate-mismatch',
      );
    }
  });
});
