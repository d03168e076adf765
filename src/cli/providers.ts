import { isEthereumAddress, ZERO_ADDRESS } from '../domain/ethereum.js';
import type { ProviderCredential } from '../domain/order.js';
import { isValidProviderName } from '../domain/provider-names.js';
import { issueProviderCredential } from '../engine/operations/credentials.js';
import { openStore } from '../store/open.js';
import type { ConfigurationReadStore, ProviderStore } from '../store/store.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type CliContext, type Command } from './command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from './settings.js';
import { formatTable } from './table.js';
import { UsageError } from './usage-error.js';

export const providersCommand: Command = {
  name: 'providers',
  summary: 'add, list or revoke quote providers, and set where they are paid',
  help: `Usage: lnswap providers add NAME [--ethereum-payout ADDRESS] [--db URL]
       lnswap providers set-payout NAME ADDRESS [--db URL]
       lnswap providers list [--db URL]
       lnswap providers revoke NAME [--db URL]

add         issues NAME's credentials and prints them once, as LNSWAP_PROVIDER_API_KEY and
            LNSWAP_PROVIDER_SECRET_KEY lines (and LNSWAP_ETHEREUM_PAYOUT, when given); only a slow hash
            of the secret is stored, so it cannot be shown again. The provider authenticates
            on /provider/v1 with them.
set-payout  binds NAME's Ethereum payout address: the swap contract pays it when an order
            NAME won is claimed. Orders already made keep the address they were made with.
list        shows every provider's name, api key, creation time, whether it is revoked,
            whether it is serving quotes now, and its Ethereum payout address.
revoke      stops NAME's credentials from working; its open connections are closed by the
            running service within its presence interval (15 s by default).

A provider without an Ethereum payout address cannot win Ethereum markets: its quotes
for them are refused. The address is the operator's word, never the provider's, so a
stolen provider secret cannot redirect payouts.

Options:
  --ethereum-payout ADDRESS  with add: NAME's Ethereum payout address
  --db URL                   database (env DATABASE_URL or DATABASE_URL_FILE, default ${DEFAULT_DATABASE_URL})
  -h, --help                 show this help
`,
  async run(args, context) {
    const { values, positionals } = parseCommandArgs({
      args: [...args],
      options: { db: { type: 'string' }, 'ethereum-payout': { type: 'string' }, ...HELP_OPTION },
      allowPositionals: true,
    });
    if (values.help) return printHelp(providersCommand, context);
    const [action, name, address, extra] = positionals;
    const payoutOption = values['ethereum-payout'];
    const unexpected = action === 'set-payout' ? extra : (address ?? extra);
    if (unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
    if (payoutOption !== undefined && action !== 'add') throw new UsageError('--ethereum-payout goes with add');
    if (action === 'list') {
      if (name !== undefined) throw new UsageError(`unexpected argument "${name}"`);
    } else if (action === 'add' || action === 'revoke' || action === 'set-payout') {
      if (name === undefined) throw new UsageError(`missing the provider NAME to ${action}`);
      if (!isValidProviderName(name)) {
        throw new UsageError('a provider NAME is 1 to 64 letters, digits, dots, dashes or underscores');
      }
    } else {
      throw new UsageError(
        action === undefined ? 'missing add, set-payout, list or revoke' : `unknown action "${action}"`,
      );
    }
    if (action === 'set-payout' && address === undefined) throw new UsageError('missing the payout ADDRESS');
    const payout = action === 'set-payout' ? address : payoutOption;
    const payoutAddress = payout === undefined ? undefined : payoutAddressOf(payout);

    const store = await openStore(databaseUrlFrom(values.db, context));
    try {
      if (action === 'list') await listProviders(store, context);
      else if (action === 'add') await addProvider(store, name as string, payoutAddress, context);
      else if (action === 'set-payout') await setPayout(store, name as string, payoutAddress as string, context);
      else await revokeProvider(store, name as string, context);
      return 0;
    } finally {
      await store.close();
    }
  },
};

/** Lowercase, as orders and the contract's events spell it; the zero address would burn every claim. */
function payoutAddressOf(text: string): string {
  if (!isEthereumAddress(text)) {
    throw new UsageError(`the payout address "${text}" is not an Ethereum address (0x and 40 hex digits)`);
  }
  const address = text.toLowerCase();
  if (address === ZERO_ADDRESS) throw new UsageError('the payout address cannot be the zero address');
  return address;
}

async function addProvider(
  store: ConfigurationReadStore & ProviderStore,
  name: string,
  ethereumPayoutAddress: string | undefined,
  context: CliContext,
): Promise<void> {
  const existing = await store.listProviderCredentials();
  if (existing.some((credential) => credential.name === name)) {
    throw new Error(`a provider named ${name} already exists (names stay taken after a revoke)`);
  }
  const { credential, secretKey } = await issueProviderCredential(name, Date.now());
  await store.addProviderCredential(
    ethereumPayoutAddress === undefined ? credential : { ...credential, ethereumPayoutAddress },
  );
  context.stdout.write(
    `# Provider ${name} added. Keep the secret now: it is not stored and cannot be shown again.\n` +
      `LNSWAP_PROVIDER_API_KEY=${credential.apiKey}\nLNSWAP_PROVIDER_SECRET_KEY=${secretKey}\n` +
      (ethereumPayoutAddress === undefined ? '' : `LNSWAP_ETHEREUM_PAYOUT=${ethereumPayoutAddress}\n`),
  );
}

async function listProviders(store: ConfigurationReadStore & ProviderStore, context: CliContext): Promise<void> {
  const [credentials, { providers }] = await Promise.all([store.listProviderCredentials(), store.getConfiguration()]);
  const serving = new Set(providers.filter((provider) => provider.active).map((provider) => provider.id));
  const rows = credentials.map((credential) => [
    credential.name,
    credential.apiKey,
    new Date(credential.createdAt).toISOString(),
    statusOf(credential),
    serving.has(credential.name) ? 'yes' : 'no',
    credential.ethereumPayoutAddress ?? '-',
  ]);
  context.stdout.write(formatTable(['NAME', 'API KEY', 'CREATED', 'STATUS', 'SERVING', 'ETHEREUM PAYOUT'], rows));
}

function statusOf(credential: ProviderCredential): string {
  return credential.revokedAt === undefined ? 'valid' : `revoked ${new Date(credential.revokedAt).toISOString()}`;
}

async function setPayout(
  store: ConfigurationReadStore & ProviderStore,
  name: string,
  address: string,
  context: CliContext,
): Promise<void> {
  if (!(await store.setProviderPayoutAddress(name, address))) {
    throw new Error(`no provider named ${name} with valid credentials`);
  }
  context.stdout.write(`provider ${name} is paid at ${address} on Ethereum\n`);
}

async function revokeProvider(
  store: ConfigurationReadStore & ProviderStore,
  name: string,
  context: CliContext,
): Promise<void> {
  if (!(await store.revokeProviderCredential(name, Date.now()))) {
    throw new Error(`no provider named ${name} with valid credentials`);
  }
  // Requirements stop counting the provider at once, before the service closes its connections.
  await store.setProviderActive(name, false);
  context.stdout.write(`provider ${name} revoked\n`);
}
