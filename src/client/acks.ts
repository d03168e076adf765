import { ackShape, broadcastAnswerShape, type AckView, type BroadcastAnswerView } from '../wire/response-shapes.js';
import { readShape } from './read-shape.js';

/** A socket.io acknowledgement of the service, read against the shape the server writes. */
export function readAck(value: unknown, event: string): AckView {
  return readShape<AckView>(ackShape, value, `the ${event} acknowledgement`);
}

/** The transaction id a successful `broadcastTransaction` answers. */
export function readBroadcastAnswer(message: unknown): BroadcastAnswerView {
  return readShape<BroadcastAnswerView>(broadcastAnswerShape, message, 'the broadcastTransaction answer');
}
