import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A fresh self-signed TLS certificate for 127.0.0.1 and localhost, as LND makes its own tls.cert, built with node's
 * crypto alone: the demo must not need an `openssl` executable (absent on Windows). The certificate is the minimal
 * X.509 v3 a TLS client accepts as its own trust anchor: an ECDSA P-256 key, a common name, a validity period and
 * the subject alternative names.
 */
export function makeSelfSignedCertificate(
  validForMs: number,
  now = Date.now(),
): { certificatePem: string; keyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = sequence(set(sequence(oid(COMMON_NAME), der(UTF8_STRING, Buffer.from('lnswap demo node')))));
  const tbs = sequence(
    der(CONTEXT_0, integer(Buffer.from([2]))),
    // A positive serial: the first bit clear.
    integer(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    sequence(oid(ECDSA_WITH_SHA256)),
    name,
    sequence(utcTime(new Date(now - CLOCK_SKEW_MS)), utcTime(new Date(now + validForMs))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(
      CONTEXT_3,
      sequence(
        sequence(
          oid(SUBJECT_ALT_NAME),
          der(
            OCTET_STRING,
            sequence(der(DNS_NAME, Buffer.from('localhost')), der(IP_ADDRESS, Buffer.from([127, 0, 0, 1]))),
          ),
        ),
      ),
    ),
  );
  const certificate = sequence(tbs, sequence(oid(ECDSA_WITH_SHA256)), bitString(sign('sha256', tbs, privateKey)));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    certificatePem: `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Valid from a little before now, so a client whose clock is slightly behind still accepts it. */
const CLOCK_SKEW_MS = 60 * 60 * 1000;

const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const OBJECT_IDENTIFIER = 0x06;
const UTF8_STRING = 0x0c;
const UTC_TIME = 0x17;
const SEQUENCE = 0x30;
const SET = 0x31;
const CONTEXT_0 = 0xa0;
const CONTEXT_3 = 0xa3;
const DNS_NAME = 0x82;
const IP_ADDRESS = 0x87;

/** 1.2.840.10045.4.3.2, 2.5.4.3 and 2.5.29.17, DER-encoded. */
const ECDSA_WITH_SHA256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
const COMMON_NAME = [0x55, 0x04, 0x03];
const SUBJECT_ALT_NAME = [0x55, 0x1d, 0x11];

function der(tag: number, content: Buffer): Buffer {
  const length = content.length;
  const lengthBytes =
    length < 0x80
      ? Buffer.from([length])
      : length < 0x100
        ? Buffer.from([0x81, length])
        : Buffer.from([0x82, length >> 8, length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), lengthBytes, content]);
}

const sequence = (...parts: Buffer[]) => der(SEQUENCE, Buffer.concat(parts));
const set = (...parts: Buffer[]) => der(SET, Buffer.concat(parts));
const oid = (bytes: readonly number[]) => der(OBJECT_IDENTIFIER, Buffer.from(bytes));
const integer = (bytes: Buffer) => der(INTEGER, bytes);
/** No unused bits: the signature is whole bytes. */
const bitString = (bytes: Buffer) => der(BIT_STRING, Buffer.concat([Buffer.from([0]), bytes]));

/** YYMMDDHHMMSSZ, the form X.509 requires for dates before 2050. */
function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return der(UTC_TIME, Buffer.from(text, 'ascii'));
}
