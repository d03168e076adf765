import { ClnRestBackend } from '../../../src/chains/lightning/cln-rest-backend.js';
import {
  CLN_STAND_IN_BLOCK_HEIGHT,
  CLN_STAND_IN_PUBLIC_KEY,
  startClnRestStandIn,
} from '../../support/lightning/cln-rest-stand-in.js';
import { describeBackendAgainstStandIn } from './backend-suite.js';

/** Runes are base64url strings; this one is only a shared secret to the stand-in. */
const RUNE = 'tU-RLjMiDpY2U0o3W1oFowar36RFGpWloPbW9-RuZdo9MyZpZD0wMjRiOWE';

describeBackendAgainstStandIn({
  title: 'Core Lightning REST backend against the stand-in clnrest',
  startStandIn: (payments) => startClnRestStandIn(payments, RUNE),
  connect: ({ node, certificatePem, credential, timeoutMs, maxResponseBytes }) =>
    new ClnRestBackend({
      url: node.url,
      certificatePem: certificatePem ?? node.certificatePem,
      rune: credential ?? RUNE,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
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
