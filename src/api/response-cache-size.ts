/** Memory for cached answers about orders when the operator sets none: `serve`'s default and the API's. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 16 * 1024 * 1024;
