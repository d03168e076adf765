import { isLnswapError } from '../domain/errors.js';

/** Every request is answered `{ success, message? }`; a refusal's message is an error token. */
export type AckPayload = { success: true; message?: unknown } | { success: false; message: string };

/**
 * Sent for failures that are not the client's doing (a bug, a database outage, a request that took
 * too long): REDSHIFT's clients know this token. Details go to the log, never to the client.
 */
export const INTERNAL_SERVER_ERROR = 'InternalServerError';

export function successAck(message: unknown): AckPayload {
  return message === undefined ? { success: true } : { success: true, message };
}

export function failureAck(error: unknown): AckPayload {
  return { success: false, message: isLnswapError(error) ? error.token : INTERNAL_SERVER_ERROR };
}
