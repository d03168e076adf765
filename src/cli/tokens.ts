import { tokenListProblem, tokenMarketName, type TokenAsset } from '../domain/market-catalog.js';
import { NETWORKS, type Network } from '../domain/markets.js';
import { openStore } from '../store/open.js';
import type { ConfigurationReadStore, TokenStore } from '../store/store.js';
import { HELP_OPTION, parseCommandArgs, printHelp, type CliContext, type Command } from './command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from './settings.js';
import { formatTable } from './table.js';
import { UsageError } from './usage-error.js';

export const tokensCommand: Command = {
  name: 'tokens',
  summary: 'add or list ERC-20 token markets',
  help: `Usage: lnswap tokens add TICKER --network NETWORK --address ADDRESS --decimals N [--db URL]
       lnswap tokens list [--db URL]

add      configures the ERC-20 token at ADDRESS on NETWORK (mainnet, testnet or simnet) as
         TICKER, with N decimals, and offers its market TICKER_<off-chain ticker of NETWORK>
         (USDC on mainnet: USDC_LBTC). Its orders are funded in the swap contract of the
         store's Ethereum chain view, which must exist. A running service picks it up at once.
         A token cannot be removed here: orders of its market must stay readable.
list     shows every configured token, its market and whether that market is offered.

Options:
  --network NETWORK   mainnet, testnet or simnet
  --address ADDRESS   the token's contract (any case)
  --decimals N        digits after the point of one whole token (USDC: 6)
  --db URL            database (env DATABASE_URL, default ${DEFAULT_DATABASE_URL})
  -h, --help          show this help
`,
  async run(args, context) {
    const { values, positionals } = parseCommandArgs({
      args: [...args],
      options: {
        db: { type: 'string' },
        network: { type: 'string' },
        address: { type: 'string' },
        decimals: { type: 'string' },
        ...HELP_OPTION,
      },
      allowPositionals: true,
    });
    if (values.help) return printHelp(tokensCommand, context);
    const [action, ticker, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    let token: TokenAsset | undefined;
    if (action === 'list') {
      if (ticker !== undefined) throw new UsageError(`unexpected argument "${ticker}"`);
    } else if (action === 'add') {
      token = tokenFromArgs(ticker, values);
    } else {
      throw new UsageError(action === undefined ? 'missing add or list' : `unknown action "${action}"`);
    }

    const store = await openStore(databaseUrlFrom(values.db, context));
    try {
      if (token === undefined) await listTokens(store, context);
      else await addToken(store, token, context);
      return 0;
    } finally {
      await store.close();
    }
  },
};

function tokenFromArgs(
  ticker: string | undefined,
  values: { network?: string; address?: string; decimals?: string },
): TokenAsset {
  if (ticker === undefined) throw new UsageError('missing the token TICKER to add');
  const { network, address, decimals } = values;
  if (network === undefined || !NETWORKS.includes(network as Network)) {
    throw new UsageError(`--network must be one of ${NETWORKS.join(', ')}`);
  }
  if (address === undefined) throw new UsageError('missing --address');
  if (decimals === undefined || !/^\d{1,2}$/.test(decimals)) throw new UsageError('--decimals must be an integer');
  const token: TokenAsset = {
    ticker: ticker.toUpperCase(),
    network: network as Network,
    // Checksummed spellings are common; the store keeps addresses in lower case.
    address: address.toLowerCase(),
    decimals: Number(decimals),
  };
  const problem = tokenListProblem([token]);
  if (problem !== undefined) throw new UsageError(`${problem.field}: ${problem.problem}`);
  return token;
}

/**
 * Adds the token and offers its market. The checks read the configuration first for clear messages; the store's
 * unique keys still refuse a token someone added in between, and nothing else of the configuration is written, so
 * a running service's provider and chain-view updates are never overwritten with what was read here.
 */
async function addToken(
  store: ConfigurationReadStore & TokenStore,
  token: TokenAsset,
  context: CliContext,
): Promise<void> {
  const configuration = await store.getConfiguration();
  const tokens = [...configuration.tokens, token];
  const problem = tokenListProblem(tokens);
  if (problem !== undefined) {
    const other = problem.problem.replace(/tokens\[(\d+)\]/, (_, index: string) => tokens[Number(index)]!.ticker);
    throw new Error(`cannot add ${token.ticker}: ${problem.field} ${other}`);
  }
  if (configuration.chains.ethereum === undefined) {
    throw new Error(
      `cannot offer ${tokenMarketName(token)}: the store has no Ethereum chain view (import one, or serve with --ethereum-rpc first)`,
    );
  }
  const market = tokenMarketName(token);
  await store.addToken(token, market);
  context.stdout.write(
    `token ${token.ticker} added (${token.network}, ${token.decimals} decimals, contract ${token.address}); ` +
      `market ${market} offered\n`,
  );
}

async function listTokens(store: ConfigurationReadStore, context: CliContext): Promise<void> {
  const { tokens, markets } = await store.getConfiguration();
  const rows = tokens.map((token) => {
    const market = tokenMarketName(token);
    return [
      token.ticker,
      token.network,
      String(token.decimals),
      token.address,
      market,
      markets.includes(market) ? 'yes' : 'no',
    ];
  });
  context.stdout.write(formatTable(['TICKER', 'NETWORK', 'DECIMALS', 'ADDRESS', 'MARKET', 'OFFERED'], rows));
}
