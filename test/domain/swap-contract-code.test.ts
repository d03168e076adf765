import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readSwapContractCode, type SwapContractCodeMismatchKind } from '../../src/domain/swap-contract-code.js';
import {
  SWAP_CONTRACT_RUNTIME_TEMPLATES,
  type ImmutableRoom,
  type SwapContractRuntimeTemplate,
} from '../../src/domain/swap-contract-runtime-code.js';
import { PROPERTY_SEED } from '../support/property-seed.js';

const OWNER = '0x' + 'ab'.repeat(20);

function word(value: bigint): string {
  return value.toString(16).padStart(64, '0');
}

/** `code` (0x hex) with `bytes` (hex) written from byte `start`. */
function written(code: string, start: number, bytes: string): string {
  return code.slice(0, 2 + 2 * start) + bytes + code.slice(2 + 2 * start + bytes.length);
}

function withRooms(code: string, rooms: readonly ImmutableRoom[], value: string): string {
  return rooms.reduce((filled, room) => written(filled, room.start, value), code);
}

/** The code a deployment of `template` holds: what its constructor writes into the immutables' rooms. */
function deployed(template: SwapContractRuntimeTemplate, owner: string, refundDelay: bigint): string {
  const withOwner = withRooms(template.code, template.immutables.owner, word(BigInt(owner)));
  return withRooms(withOwner, template.immutables.refundDelay, word(refundDelay));
}

function mismatchOf(code: unknown): SwapContractCodeMismatchKind | undefined {
  const read = readSwapContractCode(code);
  return 'mismatch' in read ? read.mismatch : undefined;
}

function isInRoom(template: SwapContractRuntimeTemplate, at: number): boolean {
  return [...template.immutables.owner, ...template.immutables.refundDelay].some(
    (room) => at >= room.start && at < room.start + room.length,
  );
}

describe('readSwapContractCode', () => {
  test('knows versions 2 and 3, each with two rooms for owner and for refundDelay', () => {
    assert.deepEqual(
      SWAP_CONTRACT_RUNTIME_TEMPLATES.map((template) => template.version),
      [2, 3],
    );
    for (const template of SWAP_CONTRACT_RUNTIME_TEMPLATES) {
      assert.ok(template.immutables.owner.length > 0 && template.immutables.refundDelay.length > 0);
      for (const room of [...template.immutables.owner, ...template.immutables.refundDelay]) {
        assert.equal(room.length, 32);
        assert.equal(template.code.slice(2 + 2 * room.start, 2 + 2 * (room.start + room.length)), '0'.repeat(64));
      }
    }
  });

  for (const template of SWAP_CONTRACT_RUNTIME_TEMPLATES) {
    test(`v${template.version}: reads the version, owner and refund delay of any deployment`, () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 1n, max: 2n ** 256n - 1n }),
          fc.bigInt({ min: 1n, max: 2n ** 160n - 1n }),
          fc.boolean(),
          (refundDelay, ownerNumber, upperCase) => {
            const owner = '0x' + ownerNumber.toString(16).padStart(40, '0');
            const code = deployed(template, owner, refundDelay);
            const read = readSwapContractCode(upperCase ? '0x' + code.slice(2).toUpperCase() : code);
            assert.deepEqual(read, { version: template.version, refundDelayBlocks: refundDelay, owner });
          },
        ),
        { seed: PROPERTY_SEED, numRuns: 50 },
      );
    });

    test(`v${template.version}: refuses the code with any one byte outside the immutables changed, metadata included`, () => {
      const genuine = deployed(template, OWNER, 5760n);
      const bytes = (genuine.length - 2) / 2;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: bytes - 1 }).filter((at) => !isInRoom(template, at)),
          fc.integer({ min: 1, max: 255 }),
          (at, flip) => {
            const original = Number.parseInt(genuine.slice(2 + 2 * at, 4 + 2 * at), 16);
            const changed = written(genuine, at, (original ^ flip).toString(16).padStart(2, '0'));
            const read = readSwapContractCode(changed);
            assert.ok('mismatch' in read);
            assert.equal(read.mismatch, 'OtherCode');
            assert.match(read.reason, new RegExp(`version ${template.version}'s at byte ${at}$`));
          },
        ),
        { seed: PROPERTY_SEED, numRuns: 100 },
      );
      // The last byte is the CBOR metadata's length: the metadata is compared like the code it describes.
      const last = bytes - 1;
      assert.equal(mismatchOf(written(genuine, last, genuine.slice(-2) === '00' ? '01' : '00')), 'OtherCode');
    });

    test(`v${template.version}: refuses the code cut short, lengthened or without its metadata`, () => {
      const genuine = deployed(template, OWNER, 5760n);
      const metadataBytes = Number.parseInt(genuine.slice(-4), 16) + 2;
      for (const code of [genuine.slice(0, -2), `${genuine}00`, genuine.slice(0, -2 * metadataBytes)]) {
        assert.equal(mismatchOf(code), 'OtherCode');
      }
    });

    test(`v${template.version}: refuses immutables no constructor writes`, () => {
      const genuine = deployed(template, OWNER, 5760n);
      const [firstOwnerRoom] = template.immutables.owner;
      const [firstDelayRoom] = template.immutables.refundDelay;
      assert.ok(firstOwnerRoom && firstDelayRoom);
      const disagreeing = written(genuine, firstDelayRoom.start, word(5761n));
      const ownerNotAnAddress = withRooms(genuine, template.immutables.owner, '01' + OWNER.slice(2).padStart(62, '0'));
      const zeroDelay = withRooms(genuine, template.immutables.refundDelay, word(0n));
      const disagreeingOwner = written(genuine, firstOwnerRoom.start, word(BigInt(OWNER) + 1n));
      for (const code of [disagreeing, ownerNotAnAddress, zeroDelay, disagreeingOwner]) {
        assert.equal(mismatchOf(code), 'InvalidImmutables');
      }
    });
  }

  test('tells no code from an answer that is not code', () => {
    assert.equal(mismatchOf(undefined), 'NoCode');
    assert.equal(mismatchOf('0x'), 'NoCode');
    for (const answer of [null, 42, {}, [], true, '', '60806040', '0x6', '0xzz', '0x 60']) {
      assert.equal(mismatchOf(answer), 'UnreadableCode', JSON.stringify(answer));
    }
  });

  test('refuses a minimal proxy or an EIP-7702 delegation to a genuine contract, naming where it forwards', () => {
    const target = '5fbdb2315678afecb367f032d93f642f64180aa3';
    const proxy = `0x363d3d373d3d3d363d73${target}5af43d82803e903d91602b57fd5bf3`;
    const delegation = `0xef0100${target}`;
    for (const code of [proxy, delegation]) {
      const read = readSwapContractCode(code);
      assert.ok('mismatch' in read);
      assert.equal(read.mismatch, 'OtherCode');
      assert.match(read.reason, new RegExp(`forwards every call to 0x${target}`));
    }
  });

  test('refuses code of another length, however long, without echoing it', () => {
    const huge = '0x' + '5b'.repeat(5_000_000);
    const started = performance.now();
    const read = readSwapContractCode(huge);
    assert.ok(performance.now() - started < 1000, 'ten megabytes are read in well under a second');
    assert.ok('mismatch' in read);
    assert.equal(read.mismatch, 'OtherCode');
    assert.ok(read.reason.length < 200);
  });
});
