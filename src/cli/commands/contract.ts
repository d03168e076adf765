import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import {
  DEFAULT_REFUND_DELAY_BLOCKS,
  deployerPrivateKeyFrom,
  ethereumRpcUrlFrom,
  refundDelayFrom,
} from '../ethereum-settings.js';
import { UsageError } from '../usage-error.js';

export const contractCommand: Command = {
  name: 'contract',
  summary: 'deploy the Ethereum swap contract',
  help: `Usage: lnswap contract deploy --ethereum-rpc URL [--refund-delay BLOCKS]

Deploys the swap contract from the account of DEPLOYER_PRIVATE_KEY, which becomes its owner:
every claim pays it, and only it may refund an order before its refund height. Prints the
deployment's progress, then the contract's address alone on the last line of stdout.

Options:
  --ethereum-rpc URL     the node's JSON-RPC endpoint, http:// or https://
                         (env ETHEREUM_RPC_URL or ETHEREUM_RPC_URL_FILE; a URL with an API key
                         belongs there, not in the process list)
  --refund-delay BLOCKS  blocks from an order's first funding until it may be refunded
                         (default ${DEFAULT_REFUND_DELAY_BLOCKS}, about 19 hours of 12-second blocks)
  -h, --help             show this help

Environment:
  DEPLOYER_PRIVATE_KEY   the deployer's private key, 64 hex digits with or without 0x
                         (there is no flag for it, so it never shows in a process list)
  DEPLOYER_PRIVATE_KEY_FILE
                         instead of DEPLOYER_PRIVATE_KEY: a file holding the key
`,
  async run(args, context) {
    const { values, positionals } = parseCommandArgs({
      args: [...args],
      options: { 'ethereum-rpc': { type: 'string' }, 'refund-delay': { type: 'string' }, ...HELP_OPTION },
      allowPositionals: true,
    });
    if (values.help) return printHelp(contractCommand, context);
    const [action, extra] = positionals;
    if (action !== 'deploy') {
      throw new UsageError(action === undefined ? 'missing the action: deploy' : `unknown action "${action}"`);
    }
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const rpcUrl = ethereumRpcUrlFrom(values['ethereum-rpc'], context.env);
    if (rpcUrl === undefined) throw new UsageError('missing --ethereum-rpc URL (or ETHEREUM_RPC_URL or ETHEREUM_RPC_URL_FILE)');
    const refundDelay = refundDelayFrom(values['refund-delay']);
    const privateKey = deployerPrivateKeyFrom(context.env);
    const { deployFromCli } = await import('../contract-deploy.js');
    await deployFromCli({ rpcUrl, refundDelay, privateKey }, (line) => context.stdout.write(`${line}\n`));
    return 0;
  },
};
