import { readFileSync } from 'node:fs';
import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import { createLogger } from '../logger.js';
import {
  DEFAULT_METRICS_PORT,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_PROVIDER_STATE,
  PROVIDER_SECRETS,
  PROVIDER_SETTINGS,
} from '../provider-settings.js';
import { secretFromEnv } from '../secrets.js';
import { readSetting } from '../serve-settings.js';
import { DEFAULT_HOST } from '../settings.js';
import { UsageError } from '../usage-error.js';

const SETTINGS = Object.values(PROVIDER_SETTINGS);

function settingsHelp(): string {
  return SETTINGS.map((setting) => {
    const variables = setting.secret === true ? `${setting.env} or ${setting.env}_FILE` : setting.env;
    const where = `env ${variables}${setting.defaultText === undefined ? '' : `, default ${setting.defaultText}`}`;
    return `  --${setting.flag} ${setting.valueName}\n               ${setting.help}\n               (${where})`;
  }).join('\n');
}

export const providerCommand: Command = {
  name: 'provider',
  summary: 'run a liquidity provider: quote, pay invoices through LND or Core Lightning, claim',
  help: `Usage: lnswap provider --config FILE --service-url URL [--state FILE] [--ethereum-rpc URL]
                       [--bitcoin-esplora URL | --bitcoin-rpc URL]
                       [--metrics-host H] [--metrics-port N|off] [--poll-interval-ms N]

Quotes on the markets of the configuration file, pays the invoices of the orders it wins once they
are funded and safe to pay, and claims the on-chain funds with the preimage, until SIGTERM or SIGINT.

Options:
${settingsHelp()}
  -h, --help   show this help

Secrets, from variables only (never flags, never logged); each also as NAME_FILE naming a file:
${PROVIDER_SECRETS.map((secret) => `  ${secret.env}\n               ${secret.help}`).join('\n')}

Flags win over environment variables, which win over defaults.
Logs are JSON lines on stdout; LOG_LEVEL sets the level (default info).
`,
  async run(args, context) {
    const { env } = context;
    const { values } = parseCommandArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(SETTINGS.map((setting) => [setting.flag, { type: 'string' as const }])),
        ...HELP_OPTION,
      },
    });
    if (values.help) return printHelp(providerCommand, context);
    const configPath = readSetting(PROVIDER_SETTINGS.config, values, env);
    if (configPath === undefined)
      throw new UsageError('give the configuration file: --config (LNSWAP_PROVIDER_CONFIG)');
    const serviceUrl = readSetting(PROVIDER_SETTINGS.serviceUrl, values, env);
    if (serviceUrl === undefined) throw new UsageError('give the service: --service-url (LNSWAP_SERVICE_URL)');
    const stateFile = readSetting(PROVIDER_SETTINGS.state, values, env) ?? DEFAULT_PROVIDER_STATE;
    const metricsPort = readSetting(PROVIDER_SETTINGS.metricsPort, values, env) ?? DEFAULT_METRICS_PORT;
    const metricsHost = readSetting(PROVIDER_SETTINGS.metricsHost, values, env) ?? DEFAULT_HOST;
    const pollIntervalMs = readSetting(PROVIDER_SETTINGS.pollIntervalMs, values, env) ?? DEFAULT_POLL_INTERVAL_MS;
    const rpcUrl = readSetting(PROVIDER_SETTINGS.ethereumRpc, values, env);
    const esploraUrl = readSetting(PROVIDER_SETTINGS.bitcoinEsplora, values, env);
    const bitcoinRpcUrl = readSetting(PROVIDER_SETTINGS.bitcoinRpc, values, env);
    const [apiKey, secretKey, payoutKey, bitcoinSeed] = PROVIDER_SECRETS.map(({ env: name }) =>
      secretFromEnv(name, env),
    );
    if (apiKey === undefined || apiKey === '') throw new UsageError('LNSWAP_PROVIDER_API_KEY is not set');
    if (secretKey === undefined || secretKey === '') throw new UsageError('LNSWAP_PROVIDER_SECRET_KEY is not set');

    const [{ parseProviderConfig, ProviderConfigError }, { openLightningBackend }] = await Promise.all([
      import('../../provider/config/provider-config.js'),
      import('../../provider/config/open-lightning-backend.js'),
    ]);
    let file;
    let lightning;
    try {
      file = parseProviderConfig(readJson(configPath));
      lightning = openLightningBackend(file.lightning);
    } catch (error) {
      if (error instanceof ProviderConfigError) throw new UsageError(`${configPath}: ${error.message}`);
      throw error;
    }
    let ethereum: { rpcUrl: string; payoutKey: `0x${string}` } | undefined;
    if (file.ethereum !== undefined) {
      if (rpcUrl === undefined)
        throw new UsageError('the configuration has Ethereum markets: give --ethereum-rpc (ETHEREUM_RPC_URL)');
      if (payoutKey === undefined || payoutKey === '') throw new UsageError('LNSWAP_PROVIDER_ETHEREUM_KEY is not set');
      // The value is never repeated: it is a private key.
      if (!/^0x[0-9a-fA-F]{64}$/.test(payoutKey))
        throw new UsageError('LNSWAP_PROVIDER_ETHEREUM_KEY must be 0x and 64 hex digits');
      ethereum = { rpcUrl, payoutKey: payoutKey as `0x${string}` };
    }

    let bitcoin: { node: Record<string, string>; seed: Uint8Array } | undefined;
    if (file.bitcoin !== undefined) {
      if ((esploraUrl === undefined) === (bitcoinRpcUrl === undefined)) {
        throw new UsageError('the configuration has a Bitcoin market: give one of --bitcoin-esplora and --bitcoin-rpc');
      }
      if (bitcoinSeed === undefined || bitcoinSeed.trim() === '') {
        throw new UsageError('LNSWAP_PROVIDER_BITCOIN_SEED is not set');
      }
      const { parseSeed } = await import('../../provider/keys/bitcoin-seed.js');
      let seed: Uint8Array;
      try {
        seed = parseSeed(bitcoinSeed, 'LNSWAP_PROVIDER_BITCOIN_SEED');
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const rpcUser = secretFromEnv('BITCOIN_RPC_USER', env);
      const rpcPassword = secretFromEnv('BITCOIN_RPC_PASSWORD', env);
      bitcoin = {
        node: {
          ...(esploraUrl === undefined ? {} : { esploraUrl }),
          ...(bitcoinRpcUrl === undefined ? {} : { rpcUrl: bitcoinRpcUrl }),
          ...(rpcUser === undefined ? {} : { rpcUser }),
          ...(rpcPassword === undefined ? {} : { rpcPassword }),
        },
        seed,
      };
    }

    const [{ startProviderDaemon }, { shutdownRequested }] = await Promise.all([
      import('../../provider/daemon/provider-daemon.js'),
      import('../shutdown.js'),
    ]);
    const logger = createLogger(env);
    const shutdown = shutdownRequested(logger);
    const daemon = await startProviderDaemon(
      {
        serviceUrl,
        credentials: { apiKey, secretKey },
        stateFile,
        pollIntervalMs,
        ...(metricsPort === 'off' ? {} : { probes: { host: metricsHost, port: metricsPort } }),
        file,
        ...(ethereum === undefined ? {} : { ethereum }),
        ...(bitcoin === undefined ? {} : { bitcoin }),
      },
      { logger, lightning },
    );
    logger.info({ payoutAddress: daemon.payoutAddress, probes: daemon.probesUrl }, 'lnswap provider is running');
    const signal = await shutdown;
    logger.info({ signal }, 'shutting down: finishing the round under way');
    await daemon.close();
    logger.info('stopped');
    return 0;
  },
};

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `the configuration file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}): ${path}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
}
