import { isAscii } from 'node:buffer';
import { SnapshotError } from './snapshot-error.js';

/**
 * Reads one top-level JSON object as it streams in, so a snapshot never has to fit in memory:
 * every member is parsed whole except the array under `streamedKey`, whose elements are cut out
 * and parsed one at a time.
 *
 * It works on bytes, read as latin1 text, a character per byte, so that string searches can skip
 * through strings. Every structural character of JSON is ASCII and UTF-8 never uses ASCII bytes
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
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** `nextBackslash` before the chunk was searched: below every index, so the first look searches. */
const NOT_SEARCHED = -1;
/** `nextBackslash` when the rest of the chunk has none. */
const NONE_LEFT = -2;

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
  private nextBackslash = NOT_SEARCHED;

  constructor(private readonly streamedKey: string) {}

  /** Feeds the next chunk; returns what it completed. Throws SnapshotError on malformed input. */
  push(chunk: Buffer): ScanEvent[] {
    const events: ScanEvent[] = [];
    const length = chunk.length;
    this.chunkIsAscii = isAscii(chunk);
    const text = chunk.toString('latin1');
    this.nextBackslash = NOT_SEARCHED;
    for (let i = 0; i < length; i++) {
      if (this.mode === Mode.Key) {
        const end = this.closingQuote(text, i);
        if (end < 0) break;
        this.finishKey(chunk, text, end + 1);
        i = end;
        continue;
      }
      if (!this.isCapturing()) this.structural(chunk, i, events);
      // A value's first byte already belongs to it, so it is scanned in the new mode too.
      if (this.isCapturing()) i = this.scanCapture(chunk, text, i, events);
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
      case Mode.Key:
      case Mode.Value:
      case Mode.Element:
        // Inside a key or a captured value the bytes are read by the capture loops, never here.
        throw new Error(`structural byte read while in mode ${this.mode}`);
    }
  }

  /** Advances through a member value or array element; returns the index of the last byte consumed. */
  private scanCapture(chunk: Buffer, text: string, start: number, events: ScanEvent[]): number {
    const length = text.length;
    let depth = this.depth;
    let i = start;
    if (this.inString) {
      const end = this.closingQuote(text, i);
      if (end < 0) return length - 1;
      this.inString = false;
      i = end + 1;
    }
    for (; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        i = this.closingQuote(text, i + 1);
        if (i < 0) {
          this.inString = true;
          this.depth = depth;
          return length - 1;
        }
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET || code === COMMA) {
        if (depth > 0 && code !== COMMA) {
          depth--;
          continue;
        }
        if (depth > 0) continue;
        this.depth = 0;
        this.finishCapture(chunk, text, i, code, events);
        return i;
      }
    }
    this.depth = depth;
    return length - 1;
  }

  /**
   * Where the string being scanned ends: the index of its closing quote, or -1 when the chunk ends
   * first, with `escaped` remembering a backslash left hanging. Strings are most of a snapshot's
   * bytes, so they are skipped with string searches rather than a byte at a time.
   */
  private closingQuote(text: string, from: number): number {
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    let quote = text.indexOf('"', i);
    for (;;) {
      const backslash = this.backslashFrom(text, i);
      if (backslash < 0 || (quote >= 0 && quote < backslash)) return quote;
      // An escape comes first: skip the backslash and the character it escapes.
      i = backslash + 2;
      if (i > text.length) {
        this.escaped = true;
        return -1;
      }
      // Searched again only when the quote found was escaped: a long string full of escapes is not
      // searched to its end once for each of them.
      if (quote >= 0 && quote < i) quote = text.indexOf('"', i);
    }
  }

  /**
   * The chunk's first backslash at or after `from`, -1 if none. Searched once per backslash rather
   * than once per string: most chunks have none, and a search for one would run to their end.
   */
  private backslashFrom(text: string, from: number): number {
    if (this.nextBackslash !== NONE_LEFT && this.nextBackslash < from) {
      const found = text.indexOf('\\', from);
      this.nextBackslash = found < 0 ? NONE_LEFT : found;
    }
    return this.nextBackslash === NONE_LEFT ? -1 : this.nextBackslash;
  }

  private startKey(i: number): void {
    this.beginCapture(i);
    this.escaped = false;
    this.mode = Mode.Key;
  }

  private finishKey(chunk: Buffer, text: string, end: number): void {
    // Cut from quote to quote, so it parses as a string or not at all.
    const key = this.parseCaptured(chunk, text, end, 'a key') as string;
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

  private finishCapture(chunk: Buffer, text: string, end: number, terminator: number, events: ScanEvent[]): void {
    if (this.mode === Mode.Value) {
      if (terminator === CLOSE_BRACKET) this.unexpected(terminator, end);
      const value = this.parseCaptured(chunk, text, end, this.key);
      events.push({ kind: 'member', key: this.key, value });
      this.mode = terminator === COMMA ? Mode.NextKey : Mode.Done;
      return;
    }
    if (terminator === CLOSE_BRACE) this.unexpected(terminator, end);
    const index = this.elementIndex++;
    const value = this.parseCaptured(chunk, text, end, `${this.key}[${index}]`);
    events.push({ kind: 'element', index, value });
    this.mode = terminator === COMMA ? Mode.NextElement : Mode.AfterMember;
  }

  private beginCapture(i: number): void {
    this.pieces = [];
    this.captureStart = i;
    this.captureOffset = this.offset + i;
  }

  private parseCaptured(chunk: Buffer, text: string, end: number, what: string): unknown {
    const start = this.captureStart;
    const pieces = this.pieces;
    this.pieces = [];
    this.captureStart = -1;
    try {
      return JSON.parse(this.decode(pieces, chunk, text, start, end));
    } catch {
      throw new SnapshotError(`${what}: not valid JSON (starting at byte ${this.captureOffset})`);
    }
  }

  /**
   * The text of bytes from earlier chunks' `pieces` and this chunk's `start` to `end`. Bytes of an
   * ASCII chunk are characters as they are, so they skip the UTF-8 decoder and its checks, which
   * cost about as much again as parsing.
   */
  private decode(pieces: readonly Buffer[], chunk: Buffer, text: string, start: number, end: number): string {
    if (pieces.length === 0 && this.chunkIsAscii) return text.slice(start, end);
    const last = chunk.subarray(start, end);
    return utf8.decode(pieces.length === 0 ? last : Buffer.concat([...pieces, last]));
  }

  private unexpected(byte: number, i: number): never {
    const shown = byte >= 0x20 && byte < 0x7f ? `"${String.fromCharCode(byte)}"` : `byte 0x${byte.toString(16)}`;
    throw new SnapshotError(`snapshot is not valid JSON: unexpected ${shown} at byte ${this.offset + i}`);
  }
}
