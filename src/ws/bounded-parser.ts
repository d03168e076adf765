import * as parser from 'socket.io-parser';

/**
 * socket.io's packet parser with a nesting bound checked on the raw text before anything parses
 * it. The stock decoder walks binary packets recursively, and so does everything that later walks
 * a payload; a packet nested deeper than `maxDepth` closes its connection instead (socket.io closes
 * a connection whose packet the decoder refuses).
 */
export function boundedParser(maxDepth: number): typeof parser {
  class BoundedDecoder extends parser.Decoder {
    override add(chunk: unknown): void {
      if (typeof chunk === 'string' && nestingExceeds(chunk, maxDepth)) {
        throw new Error(`socket.io packet nested deeper than ${maxDepth}`);
      }
      super.add(chunk);
    }
  }
  return { ...parser, Decoder: BoundedDecoder };
}

/** Counts `[` and `{` outside JSON strings, in one pass. */
export function nestingExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}
