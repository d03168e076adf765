import { isAscii } from 'node:buffer';
import { SnapshotError } from './snapshot-error.js';

/**
 * Reads one top-level JSON object as it streams in, so a snapshot never has to fit in memory:
 * every member is parsed whole except the array under `streamedKey`, whose elements are cut out
 * and parsed one at a time.
 *
 * It works on bytes. Every structural character of JSON is ASCII and UTF-8 never uses ASCII bytes
 * inside a multi-byte character, so chunks may split characters anywhere. The scanner only finds
 * where each value starts and ends (string, escape and nesting state); JSON.parse judges the
 * value itself, so the scanner accepts exactly what JSON.parse accepts, apart from the shape it
 * insists on: an object at the top, unique top-level keys, an array under `streamedKey`.
 */
export type ScanEvent =
  | { readonly kind: 'member'; readonly key: string; readonly value: unknown }
  | { readonly kind: 'arrayStart'; readonly key: string }
  | { readonly kind: 'element'; readonly index: number; readonly value: unknown };

const enum Mode {
  BeforeObject,
  FirstKey,
  NextKey,
  Key,
  Colon,
  BeforeValue,
  Value,
  FirstElement,
  NextElement,
  Element,
  AfterMember,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class TopLevelObjectScanner {
  private mode = Mode.BeforeObject;
  private offset = 0;
  private readonly keys = new Set<string>();
  private key = '';
  private elementIndex = 0;

  // The value (or key) being cut out: pieces from earlier chunks, where it starts in this one.
  private pieces: Buffer[] = [];
  private captureStart = -1;
  private captureOffset = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private chunkIsAscii = false;

  constructor(private readonly streamedKey: string) {}

  /** Feeds the next chunk; returns what it completed. Throws SnapshotError on malformed input. */
  push(chunk: Buffer): ScanEvent[] {
    const events: ScanEvent[] = [];
    const length = chunk.length;
    this.chunkIsAscii = isAscii(chunk);
    for (let i = 0; i < length; i++) {
      if (this.mode === Mode.Key) {
        const byte = chunk[i]!;
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.finishKey(chunk, i + 1);
        continue;
      }
      if (!this.isCapturing()) this.structural(chunk, i, events);
      // A value's first byte already belongs to it, so it is scanned in the new mode too.
      if (this.isCapturing()) i = this.scanCapture(chunk, i, events);
    }
    if (this.captureStart >= 0) {
      this.pieces.push(chunk.subarray(this.captureStart));
      this.captureStart = 0;
    }
    this.offset += length;
    return events;
  }

  private isCapturing(): boolean {
    return this.mode === Mode.Value || this.mode === Mode.Element;
  }

  /** Call after the last chunk: refuses a document that stopped early. */
  end(): void {
    if (this.mode !== Mode.Done) {
      throw new SnapshotError(`snapshot is not valid JSON: it ends early (after ${this.offset} bytes)`);
    }
  }

  private structural(chunk: Buffer, i: number, events: ScanEvent[]): void {
    const byte = chunk[i]!;
    if (isWhitespace(byte)) return;
    switch (this.mode) {
      case Mode.BeforeObject:
        if (byte !== OPEN_BRACE) throw new SnapshotError('snapshot is not a JSON object');
        this.mode = Mode.FirstKey;
        return;
      case Mode.FirstKey:
      case Mode.NextKey:
        if (byte === QUOTE) return this.startKey(i);
        if (byte === CLOSE_BRACE && this.mode === Mode.FirstKey) {
          this.mode = Mode.Done;
          return;
        }
        return this.unexpected(byte, i);
      case Mode.Colon:
        if (byte !== COLON) return this.unexpected(byte, i);
        this.mode = Mode.BeforeValue;
        return;
      case Mode.BeforeValue:
        if (this.key !== this.streamedKey) return this.startCapture(i, Mode.Value);
        if (byte !== OPEN_BRACKET) throw new SnapshotError(`${this.key}: must be an array`);
        events.push({ kind: 'arrayStart', key: this.key });
        this.mode = Mode.FirstElement;
        return;
      case Mode.FirstElement:
        if (byte === CLOSE_BRACKET) {
          this.mode = Mode.AfterMember;
          return;
        }
        return this.startCapture(i, Mode.Element);
      case Mode.NextElement:
        return this.startCapture(i, Mode.Element);
      case Mode.AfterMember:
        if (byte === COMMA) this.mode = Mode.NextKey;
        else if (byte === CLOSE_BRACE) this.mode = Mode.Done;
        else this.unexpected(byte, i);
        return;
      case Mode.Done:
        return this.unexpected(byte, i);
    }
  }

  /** Advances through a member value or array element; returns the index of the last byte consumed. */
  private scanCapture(chunk: Buffer, start: number, events: ScanEvent[]): number {
    const length = chunk.length;
    let depth = this.depth;
    let i = start;
    if (this.inString) {
      const end = this.closingQuote(chunk, i);
      if (end < 0) return length - 1;
      this.inString = false;
      i = end + 1;
    }
    for (; i < length; i++) {
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        i = this.closingQuote(chunk, i + 1);
        if (i < 0) {
          this.inString = true;
          this.depth = depth;
          return length - 1;
        }
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET || byte === COMMA) {
        if (depth > 0 && byte !== COMMA) {
          depth--;
          continue;
        }
        if (depth > 0) continue;
        this.depth = 0;
        this.finishCapture(chunk, i, byte, events);
        return i;
      }
    }
    this.depth = depth;
    return length - 1;
  }

  /**
   * Where the string being scanned ends: the index of its closing quote, or -1 when the chunk ends
   * first, with `escaped` remembering a backslash left hanging. Strings are most of a snapshot's
   * bytes, so they get a loop of their own that looks for nothing but a quote or a backslash.
   */
  private closingQuote(chunk: Buffer, from: number): number {
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    for (; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === QUOTE) return i;
      if (byte === BACKSLASH) i++;
    }
    this.escaped = i > chunk.length;
    return -1;
  }

  private startKey(i: number): void {
    this.beginCapture(i);
    this.escaped = false;
    this.mode = Mode.Key;
  }

  private finishKey(chunk: Buffer, end: number): void {
    // Cut from quote to quote, so it parses as a string or not at all.
    const key = this.parseCaptured(chunk, end, 'a key') as string;
    if (this.keys.has(key)) throw new SnapshotError(`${key}: appears twice`);
    this.keys.add(key);
    this.key = key;
    this.mode = Mode.Colon;
  }

  private startCapture(i: number, mode: Mode.Value | Mode.Element): void {
    this.beginCapture(i);
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.mode = mode;
  }

  private finishCapture(chunk: Buffer, end: number, terminator: number, events: ScanEvent[]): void {
    if (this.mode === Mode.Value) {
      if (terminator === CLOSE_BRACKET) this.unexpected(terminator, end);
      const value = this.parseCaptured(chunk, end, this.key);
      events.push({ kind: 'member', key: this.key, value });
      this.mode = terminator === COMMA ? Mode.NextKey : Mode.Done;
      return;
    }
    if (terminator === CLOSE_BRACE) this.unexpected(terminator, end);
    const index = this.elementIndex++;
    const value = this.parseCaptured(chunk, end, `${this.key}[${index}]`);
    events.push({ kind: 'element', index, value });
    this.mode = terminator === COMMA ? Mode.NextElement : Mode.AfterMember;
  }

  private beginCapture(i: number): void {
    this.pieces = [];
    this.captureStart = i;
    this.captureOffset = this.offset + i;
  }

  private parseCaptured(chunk: Buffer, end: number, what: string): unknown {
    const start = this.captureStart;
    const pieces = this.pieces;
    this.pieces = [];
    this.captureStart = -1;
    try {
      return JSON.parse(this.decode(pieces, chunk, start, end));
    } catch {
      throw new SnapshotError(`${what}: not valid JSON (starting at byte ${this.captureOffset})`);
    }
  }

  /**
   * The text of bytes from earlier chunks' `pieces` and this chunk's `start` to `end`. Bytes of an
   * ASCII chunk are characters as they are, so they skip the UTF-8 decoder and its checks, which
   * cost about as much again as parsing.
   */
  private decode(pieces: readonly Buffer[], chunk: Buffer, start: number, end: number): string {
    if (pieces.length === 0 && this.chunkIsAscii) return chunk.toString('latin1', start, end);
    const last = chunk.subarray(start, end);
    return utf8.decode(pieces.length === 0 ? last : Buffer.concat([...pieces, last]));
  }

  private unexpected(byte: number, i: number): never {
    const shown = byte >= 0x20 && byte < 0x7f ? `"${String.fromCharCode(byte)}"` : `byte 0x${byte.toString(16)}`;
    throw new SnapshotError(`snapshot is not valid JSON: unexpected ${shown} at byte ${this.offset + i}`);
  }
}
