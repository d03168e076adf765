import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import { UsageError, usageErrorFromParseArgs } from './usage-error.js';

export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  readonly stdout: Writable;
  /** Where errors and warnings go. */
  readonly stderr: Writable;
}

export interface Command {
  readonly name: string;
  /** One line for `lnswap --help`. */
  readonly summary: string;
  /** The whole text of `lnswap <name> --help`. */
  readonly help: string;
  /**
   * Resolves to the exit code; throws UsageError for a wrong command line. Commands load the store
   * and the service only once their arguments are known to be good, so help and usage errors answer at once.
   */
  run(args: readonly string[], context: CliContext): Promise<number>;
}

/** Strict parsing (parseArgs' default): an unknown flag or a missing value is a UsageError, not a silent default. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw usageErrorFromParseArgs(error);
  }
}

export const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

export function printHelp(command: Command, context: CliContext): number {
  context.stdout.write(command.help);
  return 0;
}

/**
 * The command line of a command that takes one argument and `--db`, such as `import FILE` or `history ORDER_ID`:
 * the argument and the `--db` value, or undefined once `--help` has been printed. `missing` names the argument
 * in the usage error when it is absent.
 */
export function parseArgumentAndDatabase(
  command: Command,
  args: readonly string[],
  context: CliContext,
  missing: string,
): { readonly argument: string; readonly db: string | undefined } | undefined {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    options: { db: { type: 'string' }, ...HELP_OPTION },
    allowPositionals: true,
  });
  if (values.help) {
    printHelp(command, context);
    return undefined;
  }
  const [argument, extra] = positionals;
  if (argument === undefined) throw new UsageError(`missing the ${missing}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  return { argument, db: values.db };
}
