import type { Command, CliContext } from './command.js';
import { contractCommand } from './commands/contract.js';
import { demoCommand } from './commands/demo.js';
import { exportCommand } from './commands/export.js';
import { historyCommand } from './commands/history.js';
import { importCommand } from './commands/import.js';
import { providerCommand } from './commands/provider.js';
import { serveCommand } from './commands/serve.js';
import { providersCommand } from './providers.js';
import { tokensCommand } from './tokens.js';
import { UsageError } from './usage-error.js';
import { firstLineOf } from '../domain/errors.js';

const COMMANDS: readonly Command[] = [
  serveCommand,
  importCommand,
  exportCommand,
  historyCommand,
  demoCommand,
  providersCommand,
  tokensCommand,
  contractCommand,
  providerCommand,
];

const USAGE = `Usage: lnswap <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(8)} ${command.summary}`).join('\n')}

Run 'lnswap <command> --help' for a command's options.
Database URLs: sqlite:PATH, sqlite::memory:, postgres://USER@HOST:PORT/DB
`;

/**
 * Everything `lnswap` does but own a process: src/cli/main.ts passes the process's streams and exits with the code,
 * and a test may pass its own streams to run a command without starting one.
 * Exit codes: 0 done, 1 the work failed (nothing half-done), 2 the command line was wrong.
 */
export async function runCommandLine(argv: readonly string[], context: CliContext): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    context.stdout.write(USAGE);
    return 0;
  }
  if (name === undefined) {
    context.stderr.write(USAGE);
    return 2;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    context.stderr.write(`lnswap: unknown command "${name}" (run lnswap --help for usage)\n`);
    return 2;
  }
  try {
    return await command.run(args, context);
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(`lnswap ${name}: ${error.message} (run lnswap ${name} --help for usage)\n`);
      return 2;
    }
    context.stderr.write(`lnswap ${name}: ${firstLineOf(error)}\n`);
    return 1;
  }
}
