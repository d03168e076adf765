import type { ProviderCredential } from '../domain/order.js';
import { isValidProviderName } from '../domain/provider-names.js';
import { issueProviderCredential } from '../engine/credentials.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type CliContext, type Command } from './command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from './settings.js';
import { UsageError } from './usage-error.js';

export const providersCommand: Command = {
  name: 'providers',
  summary: 'add, list or revoke quote providers',
  help: `Usage: lnswap providers add NAME [--db URL]
       lnswap providers list [--db URL]
       lnswap providers revoke NAME [--db URL]

add      issues NAME's credentials and prints them once, as LNSWAP_API_KEY and
         LNSWAP_SECRET_KEY lines; only a slow hash of the secret is stored, so it cannot be
         shown again. The provider authenticates on /provider/v1 with them.
list     shows every provider's name, api key, creation time, whether it is revoked and
         whether it is serving quotes now.
revoke   stops NAME's credentials from working; its open connections are closed by the
         running service within its presence interval (15 s by default).

Options:
  --db URL     database (env DATABASE_URL, default ${DEFAULT_DATABASE_URL})
  -h, --help   show this help
`,
  async run(args, context) {
    const { values, positionals } = parseCommandArgs({
      args: [...args],
      options: { db: { type: 'string' }, ...HELP_OPTION },
      allowPositionals: true,
    });
    if (values.help) return printHelp(providersCommand, context);
    const [action, name, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (action === 'list') {
      if (name !== undefined) throw new UsageError(`unexpected argument "${name}"`);
    } else if (action === 'add' || action === 'revoke') {
      if (name === undefined) throw new UsageError(`missing the provider NAME to ${action}`);
      if (!isValidProviderName(name)) {
        throw new UsageError('a provider NAME is 1 to 64 letters, digits, dots, dashes or underscores');
      }
    } else {
      throw new UsageError(action === undefined ? 'missing add, list or revoke' : `unknown action "${action}"`);
    }

    const store = await openStore(databaseUrlFrom(values.db, context.env));
    try {
      if (action === 'list') await listProviders(store, context);
      else if (action === 'add') await addProvider(store, name as string, context);
      else await revokeProvider(store, name as string, context);
      return 0;
    } finally {
      await store.close();
    }
  },
};

async function addProvider(store: Store, name: string, context: CliContext): Promise<void> {
  const existing = await store.listProviderCredentials();
  if (existing.some((credential) => credential.name === name)) {
    throw new Error(`a provider named ${name} already exists (names stay taken after a revoke)`);
  }
  const { credential, secretKey } = await issueProviderCredential(name, Date.now());
  await store.addProviderCredential(credential);
  context.stdout.write(
    `# Provider ${name} added. Keep the secret now: it is not stored and cannot be shown again.\n` +
      `LNSWAP_API_KEY=${credential.apiKey}\nLNSWAP_SECRET_KEY=${secretKey}\n`,
  );
}

async function listProviders(store: Store, context: CliContext): Promise<void> {
  const [credentials, { providers }] = await Promise.all([store.listProviderCredentials(), store.getConfiguration()]);
  const serving = new Set(providers.filter((provider) => provider.active).map((provider) => provider.id));
  const rows = credentials.map((credential) => [
    credential.name,
    credential.apiKey,
    new Date(credential.createdAt).toISOString(),
    statusOf(credential),
    serving.has(credential.name) ? 'yes' : 'no',
  ]);
  context.stdout.write(formatTable(['NAME', 'API KEY', 'CREATED', 'STATUS', 'SERVING'], rows));
}

function statusOf(credential: ProviderCredential): string {
  return credential.revokedAt === undefined ? 'valid' : `revoked ${new Date(credential.revokedAt).toISOString()}`;
}

function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}

async function revokeProvider(store: Store, name: string, context: CliContext): Promise<void> {
  if (!(await store.revokeProviderCredential(name, Date.now()))) {
    throw new Error(`no provider named ${name} with valid credentials`);
  }
  // Requirements stop counting the provider at once, before the service closes its connections.
  await store.setProviderActive(name, false);
  context.stdout.write(`provider ${name} revoked\n`);
}
