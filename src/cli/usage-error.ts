/** The command line was wrong (unknown flag, bad value): the user gets a hint and exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Node's parseArgs explains itself at length; the first sentence is the one-line error. */
export function usageErrorFromParseArgs(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return error;
  const message = (error as Error).message.split(/(?<=\.) /)[0] ?? (error as Error).message;
  return new UsageError(message.replace(/\.$/, ''));
}
