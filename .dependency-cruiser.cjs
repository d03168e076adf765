/**
 * The architecture as a checked rule (docs/architecture.md explains it): each folder of src/ names
 * the folders it may import, and nothing anywhere imports in a circle. `npm run depcheck` checks it,
 * and `npm test` runs that.
 *
 *   domain            imports nothing of the project and no I/O
 *   store, chains     domain (and their own folder)
 *   wire              domain: the response shapes and presenters HTTP and socket.io share
 *   engine            domain, the store interface, the chains interface, wire
 *   snapshot          domain, the store interface
 *   api, ws           domain, the store interface, engine, wire; never each other, never a store implementation;
 *                     the engine's parts only as types: they serve the parts the composition root hands them
 *   client            domain, wire: the service's client (typed reads and acks), no Node module: it runs in browsers
 *   provider          domain, chains, client: the provider daemon beside a Lightning node, no part of the service
 *   cli, service.ts   anything: they put the service together
 *   demo              anything: the demo's machinery (Anvil, demo token, simulated Lightning nodes, bots), imported
 *                     by the demo command only
 */

/** What builds the engine's parts: only the composition root (service.ts, and cli for its commands) calls it. */
const ENGINE_FACTORY = '^src/engine/build-engine\\.[jt]s$';
/** The engine's parts the transports serve, built once by the engine factory. */
const ENGINE_PARTS = '^src/engine/lifecycle/(order-transitions|quote-desk)\\.[jt]s$';

/** The Store interface and what every implementation shares; not the implementations or the factory choosing one. */
const STORE_INTERFACE = '^src/store/(?!open\\.[jt]s$)[^/]+\\.[jt]s$';
/** What a chain backend implements; not the backends. */
const CHAINS_INTERFACE = '^src/chains/[^/]+\\.[jt]s$';

/** Node modules that reach outside the process: files, network, processes, threads. */
const NODE_IO_MODULES =
  '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|dns/promises|tls|child_process|cluster|worker_threads|readline|repl|inspector|vm)$';
/** Packages that do I/O: database drivers, servers, loggers. */
const IO_PACKAGES =
  '(^|/)node_modules/(pg|pg-[^/]+|better-sqlite3|socket\\.io|socket\\.io-[^/]+|@socket\\.io/[^/]+|engine\\.io|fastify|@fastify/[^/]+|pino|ws|undici)/';

/** Which project folders a layer may import, besides npm packages and node modules. */
function layer(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from,
    to: { path: '^src/', pathNot: allowed },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other in a circle cannot be understood, tested or moved one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-does-no-io',
      comment: 'src/domain holds pure rules: no files, network, processes or databases.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'], path: NODE_IO_MODULES },
    },
    {
      name: 'domain-uses-no-io-package',
      comment: 'src/domain holds pure rules: no database driver, server or logger.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: IO_PACKAGES },
    },
    layer(
      'domain-stands-alone',
      { path: '^src/domain/' },
      '^src/(domain|types)/',
      'src/domain imports nothing else of the project.',
    ),
    layer(
      'store-on-domain',
      { path: '^src/store/' },
      '^src/(domain|store|types)/',
      'src/store imports only src/domain.',
    ),
    layer(
      'chains-on-domain',
      { path: '^src/chains/' },
      '^src/(domain|chains|types)/',
      'src/chains imports only src/domain.',
    ),
    layer('wire-on-domain', { path: '^src/wire/' }, '^src/(domain|wire|types)/', 'src/wire imports only src/domain.'),
    layer(
      'engine-on-interfaces',
      { path: '^src/engine/' },
      `^src/(domain|engine|wire|types)/|${STORE_INTERFACE}|${CHAINS_INTERFACE}`,
      'src/engine sees stores and chains through their interfaces only.',
    ),
    layer(
      'snapshot-on-store-interface',
      { path: '^src/snapshot/' },
      `^src/(domain|snapshot|types)/|${STORE_INTERFACE}`,
      'src/snapshot reads and writes snapshots through the Store interface.',
    ),
    layer(
      'api-on-interfaces',
      { path: '^src/api/' },
      `^src/(domain|api|engine|wire|types)/|${STORE_INTERFACE}`,
      'src/api: not src/ws, not a store implementation.',
    ),
    layer(
      'ws-on-interfaces',
      { path: '^src/ws/' },
      `^src/(domain|ws|engine|wire|types)/|${STORE_INTERFACE}|${CHAINS_INTERFACE}`,
      'src/ws: not src/api, not a store implementation, chains through their interface only.',
    ),
    layer(
      'client-on-domain-and-wire',
      { path: '^src/client/' },
      '^src/(domain|wire|client|types)/',
      "src/client reads the service through the server's own shapes (src/wire) and nothing else of the project.",
    ),
    {
      name: 'client-uses-no-node-module',
      comment:
        "src/client is the base of the wallets' library, which runs in browsers: no Node module, not even a pure one.",
      severity: 'error',
      from: { path: '^src/client/' },
      to: { dependencyTypes: ['core'] },
    },
    layer(
      'provider-on-domain-chains-and-client',
      { path: '^src/provider/' },
      '^src/(domain|chains|client|provider|types)/',
      "src/provider runs beside a provider's node: it talks to the service over the wire only, through src/client, never through store, api, ws, engine or wire.",
    ),
    {
      name: 'only-the-composition-root-builds-the-engine',
      comment: 'src/service.ts builds the engine through src/engine/build-engine.ts; nothing below it does.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(service\\.[jt]s|cli/)' },
      to: { path: ENGINE_FACTORY, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'transports-receive-engine-parts',
      comment:
        'src/api and src/ws serve the engine parts they are handed and never build one: they import them as types.',
      severity: 'error',
      from: { path: '^src/(api|ws)/' },
      to: { path: ENGINE_PARTS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-the-demo-command-imports-the-demo',
      comment:
        "src/demo is the demo's machinery, no part of the product: only `lnswap demo` (src/cli/commands/demo.ts) imports it.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(demo/|cli/commands/demo\\.[jt]s$)' },
      to: { path: '^src/demo/' },
    },
    {
      name: 'database-drivers-in-their-store',
      comment: "Only a store implementation, or the provider's own state, talks to its database.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(store/(postgres|sqlite|migrations)|provider/state)/' },
      to: { path: '(^|/)node_modules/(pg|better-sqlite3)/' },
    },
    {
      name: 'src-stands-alone',
      comment: 'The service never imports tests, benchmarks, scripts or examples.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts|examples)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|demo|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
