// Runs every test file under test/ with Node's own test runner; TypeScript is loaded through tsx.
// Files named *.exclusive.test.ts disrupt what other tests rely on (they restart PostgreSQL): they run in a
// second pass, one at a time, once the others are done. When both passes run, the closing lines add up both
// runners' summaries, and the run fails when either pass does.
// Each run records how long every file took in .test-durations.json (not versioned: the figures belong to the
// machine). The next shared pass starts the slowest files first and files it has no figure for before those,
// so that no long file starts last while the other worker sits idle; with no figures the order is by name.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const EXCLUSIVE = '.exclusive.test.ts';
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY_LINE = new RegExp(`^(?:# |ℹ )(${COUNTS.join('|')}) (\\d+)$`);
const DURATIONS_FILE = '.test-durations.json';
const PASS = new URL('./test-pass.mjs', import.meta.url).pathname;

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Milliseconds per file from earlier runs; none when there were none or the file is unreadable. */
function readDurations() {
  if (!existsSync(DURATIONS_FILE)) return {};
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

/** Files without a figure first (by name), then the slowest first. */
function slowestFirst(files, durations) {
  const figure = (file) => durations[relative(process.cwd(), resolve(file))] ?? Infinity;
  return [...files].sort((a, b) => figure(b) - figure(a) || a.localeCompare(b));
}

/** Runs one pass, passing its output through; resolves with its exit status, its closing counts and each file's time. */
async function runPass(files, concurrency) {
  const durationsDirectory = mkdtempSync(join(tmpdir(), 'lnswap-test-durations-'));
  const durationsLog = join(durationsDirectory, 'durations.jsonl');
  const args = ['--import', 'tsx', PASS, String(concurrency), durationsLog, ...files];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const counts = {};
  let partial = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      const match = SUMMARY_LINE.exec(line.trim());
      if (match !== null) counts[match[1]] = Number(match[2]);
    }
  });
  const [code] = await once(child, 'close');
  const durations = existsSync(durationsLog)
    ? readFileSync(durationsLog, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
    : [];
  rmSync(durationsDirectory, { recursive: true, force: true });
  return { status: code ?? 1, counts, durations };
}

const durations = readDurations();
const files = process.argv.length > 2 ? process.argv.slice(2) : findTests('test').sort();
const passes = [
  {
    name: 'shared',
    files: slowestFirst(
      files.filter((file) => !file.endsWith(EXCLUSIVE)),
      durations,
    ),
    concurrency: 2,
  },
  { name: 'exclusive (one file at a time)', files: files.filter((file) => file.endsWith(EXCLUSIVE)), concurrency: 1 },
].filter((pass) => pass.files.length > 0);

const results = [];
for (const pass of passes) results.push({ ...pass, ...(await runPass(pass.files, pass.concurrency)) });

for (const { durations: measured } of results) for (const { file, ms } of measured) durations[file] = ms;
for (const file of Object.keys(durations)) if (!existsSync(file)) delete durations[file];
writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, Object.keys(durations).sort(), 2)}\n`);

if (results.length > 1) {
  process.stdout.write('# both passes together\n');
  for (const { name, files: passFiles, status } of results) {
    process.stdout.write(
      `# ${name}: ${passFiles.length} files, ${status === 0 ? 'passed' : `FAILED (exit ${status})`}\n`,
    );
  }
  for (const count of COUNTS) {
    const total = results.reduce((sum, { counts }) => sum + (counts[count] ?? 0), 0);
    process.stdout.write(`# ${count} ${total}\n`);
  }
}
process.exit(results.find(({ status }) => status !== 0)?.status ?? 0);
