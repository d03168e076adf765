import { isEthereumAddress } from '../../domain/ethereum.js';
import type { SwapContractVersion } from '../../domain/order.js';
import { isSwapContractVersion, SWAP_CONTRACT_VERSIONS } from '../../domain/swap-contracts.js';
import type { AdminRefundChoice } from '../admin-refund-plan.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type CliContext, type Command } from '../command.js';
import {
  DEFAULT_REFUND_DELAY_BLOCKS,
  deployerPrivateKeyFrom,
  ethereumRpcUrlFrom,
  ownerPrivateKeyFrom,
  refundDelayFrom,
} from '../ethereum-settings.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from '../settings.js';
import { UsageError } from '../usage-error.js';

/** The third version: the second's functions unchanged, plus cooperative refunds. */
const DEFAULT_DEPLOYED_VERSION: SwapContractVersion = 3;

const MISSING_RPC_URL = 'missing --ethereum-rpc URL (or ETHEREUM_RPC_URL or ETHEREUM_RPC_URL_FILE)';

export const contractCommand: Command = {
  name: 'contract',
  summary: 'deploy the Ethereum swap contract, or refund an order as its owner',
  help: `Usage: lnswap contract deploy --ethereum-rpc URL [--refund-delay BLOCKS] [--version 2|3]
       lnswap contract use ADDRESS --ethereum-rpc URL [--db URL]
       lnswap contract admin-refund ORDER_ID --ethereum-rpc URL [--db URL] [--force]
                                    [--funder ADDRESS ... | --all] [--dry-run]

deploy: deploys the swap contract from the account of DEPLOYER_PRIVATE_KEY, which becomes its owner:
only it may refund an order before its refund height. Prints the deployment's progress, then the
contract's address alone on the last line of stdout. The third version (the default) adds cooperative
refunds to the second.

use: makes the deployed contract at ADDRESS the one new quotes use. Its code must be lnswap's swap
contract (version 2 or 3 as compiled from contracts/, its version read from the code); anything else
(no code, a look-alike, a proxy) is refused with the reason, exit code 1.
Every contract used before stays in the store's history: orders made on it keep answering with it
and stay watched, claimed and refunded there until they are final. Stop lnswap serve first and start
it again after (it reads the contract's refund delay when it starts); prints the history, oldest
first.

admin-refund: returns the order's money to its funders now, from the contract owner's account
(OWNER_PRIVATE_KEY): one adminRefund transaction per slot still open in the contract, among the
order's matching slots (each naming the order's payment hash, claimer and asset). By default only
the order's own slots: the largest, and every other holding at least a tenth of the order's amount;
smaller ones (dust, which anyone can open for 1 wei) are listed with their funders and amounts and
skipped. Before sending it prints each refund's gas estimate, the total and its fee at the current
gas price; then each transaction's hash first on its line. Only for an order in
AddressBlacklistedWaitingForRefundTx unless --force. Slots of other terms under the order's id are
not the order's and are left to their funders. The watcher then moves the order to Refunded. Exit
code 1, with nothing sent, when the order is in another state, has no open slot to refund, a
--funder holds no open matching slot, or the key is not the contract owner's.

Options:
  --ethereum-rpc URL     the node's JSON-RPC endpoint, http:// or https://
                         (env ETHEREUM_RPC_URL or ETHEREUM_RPC_URL_FILE; a URL with an API key
                         belongs there, not in the process list)
  --refund-delay BLOCKS  deploy: blocks from a slot's first funding until it may be refunded
                         (default ${DEFAULT_REFUND_DELAY_BLOCKS}, about 19 hours of 12-second blocks)
  --version 2|3          deploy: the contract version (default ${DEFAULT_DEPLOYED_VERSION})
  --db URL               use, admin-refund: database (env DATABASE_URL, default ${DEFAULT_DATABASE_URL})
  --force                admin-refund: refund an order in any state
  --funder ADDRESS       admin-refund: refund exactly this funder's open matching slot, whatever
                         it holds; repeatable
  --all                  admin-refund: refund every open matching slot, dust included
  --dry-run              admin-refund: print what would be refunded and skipped, and the gas;
                         send nothing
  -h, --help             show this help

Environment (there is no flag for a key, so it never shows in a process list; it is never printed):
  DEPLOYER_PRIVATE_KEY   deploy: the deployer's private key, 64 hex digits with or without 0x
  OWNER_PRIVATE_KEY      admin-refund: the contract owner's private key, the same format
  DEPLOYER_PRIVATE_KEY_FILE, OWNER_PRIVATE_KEY_FILE
                         instead of the variable: a file holding the key
`,
  async run(args, context) {
    const { values, positionals } = parseCommandArgs({
      args: [...args],
      options: {
        'ethereum-rpc': { type: 'string' },
        'refund-delay': { type: 'string' },
        version: { type: 'string' },
        db: { type: 'string' },
        force: { type: 'boolean' },
        funder: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        ...HELP_OPTION,
      },
      allowPositionals: true,
    });
    if (values.help) return printHelp(contractCommand, context);
    const [action, ...rest] = positionals;
    if (action !== 'deploy' && action !== 'use' && action !== 'admin-refund') {
      throw new UsageError(
        action === undefined ? 'missing the action: deploy, use or admin-refund' : `unknown action "${action}"`,
      );
    }
    if (action !== 'deploy' && values.version !== undefined) throw new UsageError('--version is for deploy');
    const rpcUrl = ethereumRpcUrlFrom(values['ethereum-rpc'], context);
    if (action === 'deploy') {
      if (rest[0] !== undefined) throw new UsageError(`unexpected argument "${rest[0]}"`);
      if (values.db !== undefined || values.force !== undefined)
        throw new UsageError('--db and --force are for admin-refund');
      if (values.funder !== undefined || values.all !== undefined || values['dry-run'] !== undefined)
        throw new UsageError('--funder, --all and --dry-run are for admin-refund');
      if (rpcUrl === undefined) throw new UsageError(MISSING_RPC_URL);
      const refundDelay = refundDelayFrom(values['refund-delay']);
      const version = deployedVersionFrom(values.version);
      const privateKey = deployerPrivateKeyFrom(context.env);
      const { deployFromCli } = await import('../contract-deploy.js');
      await deployFromCli({ rpcUrl, refundDelay, version, privateKey }, sayTo(context));
      return 0;
    }
    if (action === 'use') return useContract(rest, values, rpcUrl, context);
    const [rawId, extra] = rest;
    if (rawId === undefined) throw new UsageError('missing ORDER_ID');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (values['refund-delay'] !== undefined) throw new UsageError('--refund-delay is for deploy');
    if (rpcUrl === undefined) throw new UsageError(MISSING_RPC_URL);
    const choice = adminRefundChoiceFrom(values.funder, values.all === true);
    const privateKey = ownerPrivateKeyFrom(context.env);
    const databaseUrl = databaseUrlFrom(values.db, context);
    const [{ normalizeOrderId }, { openStore }, { adminRefundFromCli }] = await Promise.all([
      import('../../domain/order-ids.js'),
      import('../../store/open.js'),
      import('../contract-admin-refund.js'),
    ]);
    const orderId = normalizeOrderId(rawId);
    if (orderId === undefined) throw new UsageError(`"${rawId}" is not an order id (a UUID)`);
    const store = await openStore(databaseUrl);
    try {
      await adminRefundFromCli(
        store,
        { rpcUrl, orderId, privateKey, force: values.force === true, choice, dryRun: values['dry-run'] === true },
        sayTo(context),
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};

async function useContract(
  rest: readonly string[],
  values: {
    readonly db?: string;
    readonly 'refund-delay'?: string;
    readonly force?: boolean;
    readonly funder?: string[];
    readonly all?: boolean;
    readonly 'dry-run'?: boolean;
  },
  rpcUrl: string | undefined,
  context: CliContext,
): Promise<number> {
  const [address, extra] = rest;
  if (address === undefined) throw new UsageError('missing ADDRESS');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  if (!isEthereumAddress(address)) throw new UsageError(`"${address}" is not an Ethereum address`);
  if (values['refund-delay'] !== undefined) throw new UsageError('--refund-delay is for deploy');
  if (
    values.force !== undefined ||
    values.funder !== undefined ||
    values.all !== undefined ||
    values['dry-run'] !== undefined
  )
    throw new UsageError('--force, --funder, --all and --dry-run are for admin-refund');
  if (rpcUrl === undefined) throw new UsageError(MISSING_RPC_URL);
  const databaseUrl = databaseUrlFrom(values.db, context);
  const [{ openStore }, { useContractFromCli }] = await Promise.all([
    import('../../store/open.js'),
    import('../contract-use.js'),
  ]);
  const store = await openStore(databaseUrl);
  try {
    await useContractFromCli(store, { rpcUrl, address }, sayTo(context));
    return 0;
  } finally {
    await store.close();
  }
}

function deployedVersionFrom(flag: string | undefined): SwapContractVersion {
  if (flag === undefined) return DEFAULT_DEPLOYED_VERSION;
  const version = Number(flag);
  if (!/^\d$/.test(flag) || !isSwapContractVersion(version)) {
    throw new UsageError(`--version must be one of ${SWAP_CONTRACT_VERSIONS.join(', ')}, not "${flag}"`);
  }
  return version;
}

function adminRefundChoiceFrom(funders: readonly string[] | undefined, all: boolean): AdminRefundChoice {
  if (funders === undefined) return all ? { kind: 'all' } : { kind: 'order' };
  if (all) throw new UsageError('--funder and --all exclude each other');
  for (const funder of funders) {
    if (!isEthereumAddress(funder)) throw new UsageError(`--funder must be an Ethereum address, not "${funder}"`);
  }
  return { kind: 'funders', funders };
}

function sayTo(context: CliContext): (line: string) => void {
  return (line) => context.stdout.write(`${line}\n`);
}
