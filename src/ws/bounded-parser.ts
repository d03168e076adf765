import * as parser from 'socket.io-parser';

/**
 * socket.io's packet parser with a nesting bound checked on the raw text before anything parses
 * it. The stock decoder walks binary packets recursively, and so does everything that later walks
 * a payload; a packet nested deeper than `maxDepth` closes its connection instead (socket.io closes
 * a connection whose packet the decoder refuses). Only the packet's JSON is counted: its header is
 * no JSON, and a quote in it (an engine.io 3 client's namespace may carry a query) would otherwise
 * turn the count's idea of what is inside a string upside down.
 */
export function boundedParser(maxDepth: number): typeof parser {
  class BoundedDecoder extends parser.Decoder {
    override add(chunk: unknown): void {
      if (typeof chunk === 'string' && nestingExceeds(chunk, maxDepth, packetDataStart(chunk))) {
        throw new Error(`socket.io packet nested deeper than ${maxDepth}`);
      }
      super.add(chunk);
    }
  }
  return { ...parser, Decoder: BoundedDecoder };
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * Where a text packet's JSON begins, read as socket.io-parser's decoder reads the header before it:
 * the type digit, for binary packets the attachment count and `-`, a namespace starting with `/` up
 * to the first `,` (or the end), then the ack id's digits.
 */
export function packetDataStart(text: string): number {
  let index = 1;
  const type = text.charCodeAt(0);
  // BINARY_EVENT (5) and BINARY_ACK (6) carry their attachment count.
  if (type === 0x35 || type === 0x36) index = after(text, index, 0x2d);
  if (text.charCodeAt(index) === 0x2f) index = after(text, index, 0x2c);
  while (index < text.length && isDigit(text.charCodeAt(index))) index++;
  return index;
}

/** The index after the first `code` from `from` on, or the text's length without one. */
function after(text: string, from: number, code: number): number {
  const found = text.indexOf(String.fromCharCode(code), from);
  return found === -1 ? text.length : found + 1;
}

/**
 * Counts `[` and `{` outside JSON strings from `from` on, in one pass: a string's contents are skipped with
 * `indexOf` (native, no per-character work here), looking back only over the backslashes before a quote to tell
 * an escaped one from the string's end.
 */
export function nestingExceeds(text: string, maxDepth: number, from = 0): boolean {
  let depth = 0;
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      index = stringEnd(text, index + 1);
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes the string whose contents start at `from`, or the text's length. */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}
