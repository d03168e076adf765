import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import {
  LND_STAND_IN_BLOCK_HEIGHT,
  LND_STAND_IN_PUBLIC_KEY,
  startLndRestStandIn,
} from '../../support/lightning/lnd-rest-stand-in.js';
import { describeBackendAgainstStandIn } from '../../support/lightning/backend-suite.js';

const MACAROON_HEX = '0201036c6e640258030a10' + 'ab'.repeat(40);

describeBackendAgainstStandIn({
  title: 'LND REST backend against the stand-in LND',
  startStandIn: (payments) => startLndRestStandIn(payments, MACAROON_HEX),
  connect: ({ node, certificatePem, credential, timeoutMs, maxResponseBytes, files }) =>
    new LndRestBackend({
      url: node.url,
      certificatePem: certificatePem ?? node.certificatePem,
      macaroonHex: credential ?? MACAROON_HEX,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      ...(files === undefined ? {} : { certificateFile: files.certificate, macaroonFile: files.credential }),
    }),
  standInPublicKey: LND_STAND_IN_PUBLIC_KEY,
  standInBlockHeight: LND_STAND_IN_BLOCK_HEIGHT,
  balanceTitle: 'the channel balance is read in millisatoshis',
  feeLimitReason: 'no-route',
  lookedUpFailureReason: 'no-route',
  inTransitionMessage: 'LND refuses a hash in transition',
  alreadyPaidMessage: 'an invoice already paid answers with the first payment',
  credentialTitle: 'a wrong macaroon is refused as unauthorized, and the error does not carry it',
  wrongCredentials: ['cd'.repeat(40)],
  secretPartOf: (macaroon) => macaroon,
});
