import { INTERNAL_SERVER_ERROR, isLnswapError } from '../domain/errors.js';

/** Every request is answered `{ success, message? }`; a refusal's message is an error token. */
export type AckPayload = { success: true; message?: unknown } | { success: false; message: string };

export function successAck(message: unknown): AckPayload {
  return message === undefined ? { success: true } : { success: true, message };
}

export function failureAck(error: unknown): AckPayload {
  return { success: false, message: isLnswapError(error) ? error.token : INTERNAL_SERVER_ERROR };
}
