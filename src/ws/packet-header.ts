/** socket.io's EVENT packet type; BINARY_EVENT carries attachments no event takes. */
const EVENT = 0x32;
/** How far into a packet's JSON its event name is looked for: names longer than this are no event of ours. */
const EVENT_NAME_LOOKAHEAD = 64;

/** What the start of a socket.io text packet says, read without looking at its payload. */
export interface PacketHeader {
  /** An EVENT packet (type 2), the only kind that carries a request. */
  readonly isEvent: boolean;
  /** The namespace as written (`/` when absent). */
  readonly namespace: string;
  /** The ack id the client waits on; undefined when it waits on none. */
  readonly ackId: number | undefined;
  /** An EVENT's name when it is written plainly (no escapes) near the start; undefined otherwise. */
  readonly event: string | undefined;
  /** Where the packet's JSON starts. */
  readonly dataStart: number;
}

/**
 * Reads a text packet's header as socket.io-parser's decoder reads it (type digit, namespace up to `,`, ack id
 * digits), then the event name at the start of its JSON: a few dozen characters looked at, whatever the
 * packet's length.
 */
export function readPacketHeader(text: string): PacketHeader {
  let index = 1;
  const type = text.charCodeAt(0);
  // BINARY_EVENT (5) and BINARY_ACK (6) carry their attachment count.
  if (type === 0x35 || type === 0x36) index = after(text, index, '-');
  let namespace = '/';
  if (text.charCodeAt(index) === 0x2f) {
    const comma = text.indexOf(',', index);
    const end = comma === -1 ? text.length : comma;
    namespace = text.slice(index, end);
    index = comma === -1 ? text.length : comma + 1;
  }
  const idStart = index;
  while (index < text.length && index - idStart <= MAX_ACK_ID_DIGITS && isDigit(text.charCodeAt(index))) index++;
  const idText = text.slice(idStart, index);
  const isEvent = type === EVENT;
  return {
    isEvent,
    namespace,
    ackId: idText === '' || idText.length > MAX_ACK_ID_DIGITS ? undefined : Number(idText),
    event: isEvent ? plainEventName(text, index) : undefined,
    dataStart: index,
  };
}

/** socket.io-parser reads ack ids as numbers: more digits than this are no id it could answer. */
const MAX_ACK_ID_DIGITS = 15;

/** The index after the first `character` from `from` on, or the text's length without one. */
function after(text: string, from: number, character: string): number {
  const found = text.indexOf(character, from);
  return found === -1 ? text.length : found + 1;
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/** The string right after the JSON's opening `[`, if it is written without escapes within the lookahead. */
function plainEventName(text: string, dataStart: number): string | undefined {
  if (text.charCodeAt(dataStart) !== 0x5b || text.charCodeAt(dataStart + 1) !== 0x22) return undefined;
  const window = text.slice(dataStart + 2, dataStart + 2 + EVENT_NAME_LOOKAHEAD + 1);
  const end = window.indexOf('"');
  if (end === -1) return undefined;
  const name = window.slice(0, end);
  return name.includes('\\') ? undefined : name;
}
