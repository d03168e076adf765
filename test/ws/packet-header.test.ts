import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { Encoder, PacketType } from 'socket.io-parser';
import { packetDataStart } from '../../src/ws/bounded-parser.js';
import { readPacketHeader } from '../../src/ws/packet-header.js';
import { jsonStringBytes } from '../../src/ws/payload-bounds.js';

describe('readPacketHeader', () => {
  test("reads namespace, ack id and event name as socket.io's encoder writes them", () => {
    const encoder = new Encoder();
    const cases = [
      { nsp: '/user/v1', id: 12, event: 'broadcastTransaction' },
      { nsp: '/provider/v1', id: undefined, event: 'makerQuote' },
      { nsp: '/', id: 0, event: 'requestQuote' },
    ];
    for (const { nsp, id, event } of cases) {
      const [text] = encoder.encode({
        type: PacketType.EVENT,
        nsp,
        ...(id === undefined ? {} : { id }),
        data: [event, { a: 1 }],
      }) as string[];
      const header = readPacketHeader(text!);
      assert.deepEqual(
        { isEvent: header.isEvent, namespace: header.namespace, ackId: header.ackId, event: header.event },
        { isEvent: true, namespace: nsp, ackId: id, event },
        text,
      );
      assert.equal(header.dataStart, packetDataStart(text!));
    }
  });

  test('looks only at the start: a name with escapes, too long or unterminated is no name; other packet types have none', () => {
    assert.equal(readPacketHeader('2/user/v1,1["broad\\u0063ast",{}]').event, undefined);
    assert.equal(readPacketHeader(`2/user/v1,1["${'a'.repeat(65)}",{}]`).event, undefined);
    assert.equal(readPacketHeader(`2/user/v1,1["${'a'.repeat(2_000_000)}`).event, undefined);
    assert.equal(readPacketHeader('0/user/v1,{"token":"x"}').isEvent, false);
    assert.equal(readPacketHeader('3/user/v1,4[{}]').event, undefined);
    // More digits than an id socket.io could answer: no ack id.
    assert.equal(readPacketHeader(`2/user/v1,${'9'.repeat(40)}["x"]`).ackId, undefined);
  });
});

describe('jsonStringBytes', () => {
  test('is the UTF-8 length of JSON.stringify, for any UTF-16 string, lone surrogates and controls included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (binary, graphemes) => {
        for (const text of [binary, graphemes, `${binary}\ud800`, `\udc00${graphemes}"\\\n\u0001`]) {
          assert.equal(jsonStringBytes(text), Buffer.byteLength(JSON.stringify(text)), JSON.stringify(text));
        }
      }),
      { seed: PROPERTY_SEED },
    );
  });
});
