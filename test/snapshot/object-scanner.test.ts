import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { TopLevelObjectScanner } from '../../src/snapshot/object-scanner.js';
import { SnapshotError } from '../../src/snapshot/snapshot-error.js';

const STREAMED = 'orders';
/** JSON text is UTF-8; bytes that are not do not parse. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Scanned {
  members: [string, unknown][];
  elements: unknown[] | undefined;
}

/** Feeds `bytes` cut at `cuts` and collects what the scanner reports. */
function scan(bytes: Buffer, cuts: readonly number[] = []): Scanned {
  const scanner = new TopLevelObjectScanner(STREAMED);
  const scanned: Scanned = { members: [], elements: undefined };
  const boundaries = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const end of [...boundaries, bytes.length]) {
    for (const event of scanner.push(bytes.subarray(start, end))) {
      if (event.kind === 'member') scanned.members.push([event.key, event.value]);
      else if (event.kind === 'arrayStart') scanned.elements = [];
      else {
        assert.equal(event.index, scanned.elements!.length);
        scanned.elements!.push(event.value);
      }
    }
    start = end;
  }
  scanner.end();
  return scanned;
}

/**
 * What JSON.parse makes of the same text, in the scanner's terms, members ordered by key: the scanner reports them
 * in the document's order, JSON.parse's object lists keys like "0" before the others.
 */
function expected(parsed: Record<string, unknown>): Scanned {
  const members = Object.entries(parsed).filter(([key]) => key !== STREAMED);
  return {
    members: byKey(members),
    elements: Object.hasOwn(parsed, STREAMED) ? (parsed[STREAMED] as unknown[]) : undefined,
  };
}

/** `scanned` with its members ordered by key, to compare with `expected`. */
function keyOrdered(scanned: Scanned): Scanned {
  return { ...scanned, members: byKey(scanned.members) };
}

function byKey(members: [string, unknown][]): [string, unknown][] {
  return [...members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const jsonValue = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
const documents = fc.record({
  members: fc.dictionary(
    fc.string({ unit: 'binary' }).filter((key) => key !== STREAMED),
    jsonValue,
    { maxKeys: 5 },
  ),
  orders: fc.option(fc.array(jsonValue, { maxLength: 6 }), { nil: undefined }),
  indent: fc.constantFrom(0, 1, 2, '\t', '\r\n '),
});

interface GeneratedDocument {
  members: Record<string, unknown>;
  orders: unknown[] | undefined;
  indent: string | number;
}

function render(document: GeneratedDocument) {
  const whole = document.orders === undefined ? document.members : { ...document.members, [STREAMED]: document.orders };
  return JSON.stringify(whole, null, document.indent);
}

describe('TopLevelObjectScanner', () => {
  test('matches JSON.parse on random documents cut into random chunks', () => {
    fc.assert(
      fc.property(documents, fc.array(fc.nat(), { maxLength: 8 }), (document, cuts) => {
        const text = render(document);
        assert.deepStrictEqual(
          keyOrdered(scan(Buffer.from(text, 'utf8'), cuts)),
          expected(JSON.parse(text) as Record<string, unknown>),
        );
      }),
      { seed: PROPERTY_SEED, numRuns: 400 },
    );
  });

  test('refuses exactly what JSON.parse refuses, once a random document is damaged', () => {
    const damage = fc.oneof(
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        text: fc.constantFrom(...'{}[],:"\\ 0a-x\u00e9'),
      }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(documents, damage, fc.array(fc.nat(), { maxLength: 4 }), (document, change, cuts) => {
        // Damage is done to bytes, so it can also break a multi-byte character.
        const original = Buffer.from(render(document), 'utf8');
        const at = change.at % (original.length + 1);
        const bytes =
          change.kind === 'delete'
            ? Buffer.concat([original.subarray(0, at), original.subarray(at + 1)])
            : change.kind === 'insert'
              ? Buffer.concat([original.subarray(0, at), Buffer.from(change.text, 'utf8'), original.subarray(at)])
              : original.subarray(0, at);

        let parsed: unknown;
        let parseFailed = false;
        try {
          parsed = JSON.parse(strictUtf8.decode(bytes));
        } catch {
          parseFailed = true;
        }
        let scanned: Scanned | undefined;
        let refusal: unknown;
        try {
          scanned = scan(bytes, cuts);
        } catch (error) {
          refusal = error;
        }

        const shown = JSON.stringify(bytes.toString('utf8'));
        if (refusal !== undefined) {
          assert.ok(refusal instanceof SnapshotError, `not a SnapshotError: ${String(refusal as Error)}`);
        }
        if (parseFailed) {
          assert.ok(refusal !== undefined, `accepted what JSON.parse refuses: ${shown}`);
          return;
        }
        if (refusal === undefined) {
          assert.ok(isPlainObject(parsed));
          assert.deepStrictEqual(keyOrdered(scanned!), expected(parsed));
          return;
        }
        // JSON.parse accepted it; the scanner may only refuse the shapes it insists on.
        const message = (refusal as Error).message;
        const shapeRefused =
          (message === 'snapshot is not a JSON object' && !isPlainObject(parsed)) ||
          (message === `${STREAMED}: must be an array` && isPlainObject(parsed) && !Array.isArray(parsed[STREAMED])) ||
          message.endsWith(': appears twice');
        assert.ok(shapeRefused, `refused valid JSON ${shown}: ${message}`);
      }),
      { seed: PROPERTY_SEED, numRuns: 600 },
    );
  });

  test('keeps a multi-byte character whole when a chunk ends inside it', () => {
    const bytes = Buffer.from('{"note":"€ and 🎉","orders":[{"memo":"ü"}]}', 'utf8');
    const euroStart = bytes.indexOf(Buffer.from('€'));
    for (let cut = euroStart; cut <= euroStart + 3; cut++) {
      assert.deepStrictEqual(scan(bytes, [cut, cut + 9]), {
        members: [['note', '€ and 🎉']],
        elements: [{ memo: 'ü' }],
      });
    }
  });

  test('keeps an escape whole wherever a chunk ends, in keys, members and elements', () => {
    const text = '{"k\\"ey":"a\\"b\\\\","orders":[{"q":"\\\\\\"]"},"\\"},"]}';
    const whole = JSON.parse(text) as Record<string, unknown>;
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const second of [cut + 1, cut + 2]) {
        assert.deepStrictEqual(keyOrdered(scan(bytes, [cut, second])), expected(whole), `cut at ${cut} and ${second}`);
      }
    }
  });

  test("reports members in the document's order, keys that look like array indexes too", () => {
    assert.deepStrictEqual(scan(Buffer.from('{"b":1,"":2,"0":3,"orders":[]}')), {
      members: [
        ['b', 1],
        ['', 2],
        ['0', 3],
      ],
      elements: [],
    });
  });

  test('hands out each element of the streamed array as soon as it is complete', () => {
    const scanner = new TopLevelObjectScanner(STREAMED);
    assert.deepStrictEqual(scanner.push(Buffer.from('{"orders":[{"a":1},')), [
      { kind: 'arrayStart', key: STREAMED },
      { kind: 'element', index: 0, value: { a: 1 } },
    ]);
    assert.deepStrictEqual(scanner.push(Buffer.from('"x]"')), []);
    assert.deepStrictEqual(scanner.push(Buffer.from(']}')), [{ kind: 'element', index: 1, value: 'x]' }]);
    scanner.end();
  });

  test('names where the document went wrong', () => {
    const refusal = (text: string) => {
      try {
        scan(Buffer.from(text));
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    assert.equal(refusal('{"orders":[{"id":1},{"id":}]}'), 'orders[1]: not valid JSON (starting at byte 20)');
    assert.equal(refusal('{"version":1,}'), 'snapshot is not valid JSON: unexpected "}" at byte 13');
    assert.equal(refusal('{"version":1'), 'snapshot is not valid JSON: it ends early (after 12 bytes)');
    assert.equal(refusal('{"a":1,"a":2}'), 'a: appears twice');
    assert.equal(refusal('{"orders":{}}'), 'orders: must be an array');
    assert.equal(refusal('[]'), 'snapshot is not a JSON object');
    assert.equal(refusal('{"a":"\xff"}'.replace('\xff', '\u00ff')), 'accepted');
    assert.match(refusal('{"a":1}\n{"b":2}'), /unexpected "\{" at byte 8/);
  });

  test('refuses bytes that are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('{"orders":["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]}')]);
    assert.throws(() => scan(bytes), { message: 'orders[0]: not valid JSON (starting at byte 11)' });
  });
});
