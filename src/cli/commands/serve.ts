import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from '../heap-growth.js';
import { createLogger } from '../logger.js';
import {
  databaseUrlFrom,
  DEFAULT_DATABASE_URL,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_RESPONSE_CACHE_MB,
  hostFrom,
  portFrom,
  responseCacheBytesFrom,
} from '../settings.js';
import {
  HEAP_GROWTH_SETTING,
  readServeSettings,
  readSetting,
  settingOptions,
  settingsHelp,
} from '../serve-settings.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the HTTP API and the socket.io namespaces',
  help: `Usage: lnswap serve [--db URL] [--port N] [--host H] [--response-cache-mb N]
                    [--ethereum-rpc URL [--swap-contract ADDRESS] [--ethereum-confirmations N]]
                    [--bitcoin-esplora URL | --bitcoin-rpc URL] [--bitcoin-confirmations N]
                    [engine options]

Serves the API until SIGTERM or SIGINT, then finishes in-flight requests and exits 0.

Options:
  --db URL     database (env DATABASE_URL or DATABASE_URL_FILE, default ${DEFAULT_DATABASE_URL})
  --port N     TCP port, 0 for any free one (env PORT, default ${DEFAULT_PORT})
  --host H     address to listen on (env HOST, default ${DEFAULT_HOST})
  --response-cache-mb N
               memory for cached answers about orders
               (env RESPONSE_CACHE_MB, default ${DEFAULT_RESPONSE_CACHE_MB}; 0 turns the cache off)
${settingsHelp()}
  -h, --help   show this help

Flags win over environment variables, which win over defaults.

Logs are JSON lines on stdout; LOG_LEVEL sets the level (default info; debug adds one line
per HTTP request).
`,
  async run(args, context) {
    const { env } = context;
    const { values } = parseCommandArgs({
      args: [...args],
      options: {
        db: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'response-cache-mb': { type: 'string' },
        ...settingOptions(),
        ...HELP_OPTION,
      },
    });
    if (values.help) return printHelp(serveCommand, context);
    const port = portFrom(values.port, env);
    const host = hostFrom(values.host, env);
    const databaseUrl = databaseUrlFrom(values.db, context);
    const responseCacheBytes = responseCacheBytesFrom(values['response-cache-mb'], env);
    const settings = readServeSettings(values, env);
    const [{ openStore }, { serveUntilShutdown }] = await Promise.all([
      import('../../store/open.js'),
      import('../serve-until-shutdown.js'),
    ]);
    const logger = createLogger(env);
    boundHeapGrowth(readSetting(HEAP_GROWTH_SETTING, values, env) ?? HEAP_GROWING_PERCENT);
    const store = await openStore(databaseUrl);
    const announce = (url: string) => logger.info({ url }, 'lnswap is serving');
    await serveUntilShutdown(
      {
        store,
        host,
        port,
        logger,
        databaseUrl,
        responseCacheBytes,
        engine: settings.engine,
        metrics: settings.metrics,
        ...(settings.sockets === undefined ? {} : { sockets: settings.sockets }),
        ...(settings.ethereum === undefined ? {} : { ethereum: settings.ethereum }),
        ...(settings.bitcoin === undefined ? {} : { bitcoin: settings.bitcoin }),
      },
      announce,
    );
    return 0;
  },
};
