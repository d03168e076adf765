// Runs every test file under test/, heavy ones each in its own Node process and light ones several to a process
// (scripts/test-group.mjs), and prints each process's output whole once it ends. The tests run as JavaScript: esbuild
// first transpiles src/, test/, bench/, scripts/ and examples/ into build/ (types stripped as tsx strips them; tsc
// checks them beside), since a file loaded through tsx costs about a CPU second more to start, and so does every
// program it starts; then it bundles each test file and each program the tests start, so that a process loads a few
// chunks instead of a thousand modules (bundleTestsAndPrograms). Files named *.exclusive.test.ts disrupt what other
// tests rely on (they restart PostgreSQL): they run in a pass of their own, one at a time, before the others. The
// closing lines add up every file's counts; the run fails when any file or check does.
//
// `--checks` also runs the type check with the lint (one process on one TypeScript program:
// scripts/check-types-and-lint.mjs) and the dependency rules, side by side with the tests at a lower CPU priority:
// the tests spend much of their time waiting (quote deadlines, chain polls, child processes starting), and the
// checks take that idle CPU instead of running first, one after another.
// `--quick` is the short loop (`npm run test:quick`): the files of test/domain, test/store, test/api and test/ws
// that start no Anvil, Chromium or demo, with PostgreSQL left out (LNSWAP_TEST_STORES=sqlite, read by
// test/support/stores.ts), no checks.
// `--record-durations` writes each file's wall time to scripts/test-durations.json, which orders the next runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';

const EXCLUSIVE = '.exclusive.test.ts';
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY_LINE = new RegExp(`^# (${COUNTS.join('|')}) (\\d+)$`);
const CHECKS = ['typecheck-and-lint', 'depcheck', 'format:check'];
const QUICK_FOLDERS = ['test/domain', 'test/store', 'test/api', 'test/ws'];
/** What the quick tier leaves out: a file that imports, itself or through other test modules, one of these. */
const SLOW_HELPERS = ['anvil', 'chromium', 'demo-service'].map((name) => join('test', 'support', `${name}.ts`));
const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+)\.js'/g;
const SOURCES = ['src', 'test', 'bench', 'scripts', 'examples'];
const BUILD_DIRECTORY = 'build';
const DURATIONS_FILE = join('scripts', 'test-durations.json');

// Three processes at a time on two cores beside the checks, five once they end or without them: most files spend
// their time waiting (quote deadlines, chain polls, child processes starting); measured, ten of the slowest used
// 0.63 of a core each on average. Beside the checks more processes only take their CPU (they end later, and the run
// with them); once they end, the two more fill the cores the waiting files leave idle.
const CONCURRENCY_BESIDE_CHECKS = 3;
const CONCURRENCY = 5;

function findFiles(dir, suffix) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findFiles(path, suffix);
    return name.endsWith(suffix) ? [path] : [];
  });
}

/**
 * Every TypeScript module to build/, under its source's path (test/a/b.test.ts → build/test/a/b.test.js), then each
 * test file and each program the tests start bundled over its own transpiled copy (bundleTestsAndPrograms).
 */
async function transpile() {
  rmSync(BUILD_DIRECTORY, { recursive: true, force: true });
  const entryPoints = SOURCES.flatMap((dir) => findFiles(dir, '.ts')).filter((file) => !file.endsWith('.d.ts'));
  await build({
    entryPoints,
    outdir: BUILD_DIRECTORY,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
  await bundleTestsAndPrograms(
    entryPoints.filter((file) => file.endsWith('.test.ts') || TEST_PROGRAMS.includes(file.split(sep).join('/'))),
  );
}

/**
 * The programs tests start as processes or threads of their own; bundled as the test files are. One missing here
 * still runs, from its transpiled copy, only slower to start.
 */
const TEST_PROGRAMS = [
  'src/cli/main.ts',
  'src/cli/heap-growth.ts',
  'src/snapshot/signature-checker.ts',
  'test/support/chains/bitcoin/watching-service.ts',
  'test/support/chains/ethereum/watching-service.ts',
  'test/support/e2e/watching-instance.ts',
  'test/support/provider/kill-after-refund-signed.ts',
  'test/support/provider/kill-during-payment.ts',
];

/**
 * Packages left to Node's own loading: native addons, and packages that find files of their own beside their code
 * (`__dirname`, `import.meta.url`, `require.resolve`: static files served, worker scripts, binaries, JSON schemas),
 * which would look for them beside a chunk of build/ instead.
 */
const UNBUNDLED_PACKAGES = [
  'better-sqlite3',
  'secp256k1',
  'koffi',
  'pg-native',
  'pino',
  'thread-stream',
  'socket.io',
  'engine.io',
  'ws',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@seriousme/openapi-schema-validator',
  '@foundry-rs/anvil',
  'playwright-core',
  'esbuild',
  'typescript',
  'solc',
  'tsx',
  'dependency-cruiser',
];

/**
 * Bundles `entryPoints` with what they import, node_modules included, into build/, shared code in build/chunks/:
 * a process loads a few chunks instead of opening and linking some 1,100 modules one by one, in half the CPU
 * (docs/decisions.md, "Tests"). `import.meta.url` in the repository's own modules becomes the address of the
 * module's transpiled copy, so what they find relative to themselves (a worker, the repository's root) they find as
 * before. The `require` of the banner is for bundled CommonJS packages, which require Node's built-in modules.
 */
async function bundleTestsAndPrograms(entryPoints) {
  const root = process.cwd();
  const transpiledUrl = (path) =>
    pathToFileURL(join(root, BUILD_DIRECTORY, path.slice(root.length + 1).replace(/\.ts$/, '.js'))).href;
  const keepModuleUrls = {
    name: 'keep-module-urls',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        return {
          contents: source.replaceAll('import.meta.url', JSON.stringify(transpiledUrl(args.path))),
          loader: 'ts',
        };
      });
    },
  };
  await build({
    entryPoints,
    bundle: true,
    splitting: true,
    outdir: BUILD_DIRECTORY,
    outbase: '.',
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    external: UNBUNDLED_PACKAGES,
    banner: {
      js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
    },
    plugins: [keepModuleUrls],
  });
}

function readDurations() {
  return existsSync(DURATIONS_FILE) ? JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) : {};
}

/**
 * Longest first, from the recorded wall times, so the last files to start are short ones and the pass does not end
 * with one long file running alone. A file with no recorded time (a new one) goes first: it may be long.
 */
function longestFirst(files, durations) {
  const duration = (file) => durations[file] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => duration(b) - duration(a) || a.localeCompare(b));
}

/** Runs a child to its end, keeping its stdout and stderr together in the order they came. */
async function runBuffered(command, args) {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  child.stdout.on('data', (chunk) => chunks.push(chunk));
  child.stderr.on('data', (chunk) => chunks.push(chunk));
  const [code] = await once(child, 'close');
  return {
    status: code ?? 1,
    output: Buffer.concat(chunks).toString('utf8'),
    seconds: (performance.now() - started) / 1000,
  };
}

function transpiledPath(file) {
  return join(BUILD_DIRECTORY, file.replace(/\.ts$/, '.js'));
}

/**
 * Files of one folder of test/ recorded at most LIGHT_SECONDS run several to a process (scripts/test-group.mjs), up
 * to GROUP_SECONDS of recorded time a group: a process costs half a CPU-second to start and load its bundle before
 * any test runs (more for a file that starts the service), and most files wait more than they compute, so running
 * them one after another in one process costs wall time the other processes fill.
 */
const LIGHT_SECONDS = 10;
const GROUP_SECONDS = 20;

/**
 * What runs in one process: a file alone, or a group of light files of one folder. Groups are filled longest first
 * up to GROUP_SECONDS of recorded time, so they stay shorter than the longest files and the pass stays balanced.
 */
function runUnits(files, durations) {
  const units = [];
  const groups = new Map();
  for (const file of files) {
    const folder = dirname(file).split(sep).slice(0, 2).join(sep);
    const seconds = durations[file];
    if (seconds === undefined || seconds > LIGHT_SECONDS) {
      units.push({ name: file, files: [file], seconds: seconds ?? Number.POSITIVE_INFINITY });
      continue;
    }
    const open = groups.get(folder);
    if (open !== undefined && open.seconds + seconds <= GROUP_SECONDS) {
      open.files.push(file);
      open.seconds += seconds;
      continue;
    }
    const group = { name: folder, files: [file], seconds };
    groups.set(folder, group);
    units.push(group);
  }
  for (const unit of units) if (unit.files.length > 1) unit.name = `${unit.name} (${unit.files.join(' ')})`;
  return units.sort((a, b) => b.seconds - a.seconds || a.name.localeCompare(b.name));
}

/** A test file (or a group of them) run directly prints TAP and its summary counts, and exits 1 when a test failed. */
async function runUnit({ files }) {
  const args =
    files.length === 1 ? [transpiledPath(files[0])] : [join('scripts', 'test-group.mjs'), ...files.map(transpiledPath)];
  const result = await runBuffered(process.execPath, ['--enable-source-maps', ...args]);
  const counts = {};
  for (const line of result.output.split('\n')) {
    const match = SUMMARY_LINE.exec(line.trim());
    if (match !== null) counts[match[1]] = Number(match[2]);
  }
  if (result.status === 0) return { ...result, counts };
  // A file that failed before reporting (a syntax error, a crash) still counts as a failure.
  return { ...result, counts: { ...counts, fail: Math.max(counts.fail ?? 0, 1) } };
}

/** A file's or a check's output whole, framed by its name, then its verdict and wall time. */
function printResult(kind, name, { status, output, seconds }) {
  const verdict = status === 0 ? 'passed' : `FAILED (exit ${status})`;
  process.stdout.write(`# ${kind} ${name}\n${output}# ${kind} ${name} ${verdict} in ${seconds.toFixed(1)} s\n`);
}

/**
 * Runs the units in the given order, `concurrency` at a time, `widen.to` at a time once `widen.after` settles;
 * prints each one's output when it ends.
 */
async function runPass(units, concurrency, widen) {
  const queue = [...units];
  const results = [];
  const worker = async () => {
    for (let unit = queue.shift(); unit !== undefined; unit = queue.shift()) {
      const result = { file: unit.name, files: unit.files, ...(await runUnit(unit)) };
      printResult('file', unit.name, result);
      results.push(result);
    }
  };
  const widened = widen?.after.then(() => Promise.all(Array.from({ length: widen.to - concurrency }, worker)));
  await Promise.all([...Array.from({ length: concurrency }, worker), widened]);
  return results;
}

/** `npm run NAME` at a lower priority, so a test never waits for it. */
function startCheck(name) {
  return runBuffered('nice', ['-n', '10', 'npm', 'run', '-s', name]).then((result) => {
    printResult('check', name, result);
    return { name, ...result };
  });
}

/** Whether `file` imports one of SLOW_HELPERS, directly or through the test modules it imports. */
function needsSlowHelper(file, seen = new Set()) {
  if (SLOW_HELPERS.includes(file)) return true;
  if (seen.has(file) || !file.startsWith(`test${sep}`) || !existsSync(file)) return false;
  seen.add(file);
  const imported = [...readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)].map(([, path]) =>
    join(dirname(file), `${path}.ts`),
  );
  return imported.some((path) => needsSlowHelper(path, seen));
}

/** The quick tier's files: the fast folders' files that need no slow helper. */
function quickFiles() {
  return QUICK_FOLDERS.flatMap((dir) => findFiles(dir, '.test.ts')).filter(
    (file) => !file.endsWith(EXCLUSIVE) && !needsSlowHelper(file),
  );
}

const args = process.argv.slice(2);
const withChecks = args.includes('--checks');
const quick = args.includes('--quick');
if (quick) process.env.LNSWAP_TEST_STORES = 'sqlite';
const recordDurations = args.includes('--record-durations');
const named = args.filter((arg) => !arg.startsWith('--'));

const checks = withChecks ? Promise.all(CHECKS.map(startCheck)) : Promise.resolve([]);
await transpile();
const durations = readDurations();
const chosen = named.length > 0 ? named : quick ? quickFiles() : findFiles('test', '.test.ts');
const files = longestFirst(chosen, durations);
// The exclusive files first: running one at a time, they leave a core to the checks, which would otherwise take
// it from the shared pass.
const results = [
  ...(await runPass(
    files.filter((file) => file.endsWith(EXCLUSIVE)).map((file) => ({ name: file, files: [file] })),
    1,
  )),
  ...(await runPass(
    runUnits(
      files.filter((file) => !file.endsWith(EXCLUSIVE)),
      durations,
    ),
    withChecks ? CONCURRENCY_BESIDE_CHECKS : CONCURRENCY,
    withChecks ? { after: checks, to: CONCURRENCY } : undefined,
  )),
];
const checkResults = await checks;

if (recordDurations) {
  // A group's time is its files' together: each file keeps the time it had when it last ran alone.
  for (const { files: run, seconds } of results)
    if (run.length === 1) durations[run[0]] = Math.round(seconds * 10) / 10;
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}

const failed = [...checkResults, ...results].filter(({ status }) => status !== 0);
const fileCount = results.reduce((sum, { files: run }) => sum + run.length, 0);
process.stdout.write(`# ${fileCount} files in ${results.length} processes, ${checkResults.length} checks\n`);
for (const { file, name } of failed) process.stdout.write(`# FAILED: ${file ?? name}\n`);
for (const count of COUNTS) {
  const total = results.reduce((sum, { counts }) => sum + (counts[count] ?? 0), 0);
  process.stdout.write(`# ${count} ${total}\n`);
}
process.exit(failed.length > 0 ? 1 : 0);
