// Runs every test file under test/ with Node's own test runner; TypeScript is loaded through tsx.
// Files named *.exclusive.test.ts disrupt what other tests rely on (they restart PostgreSQL): they run in a
// second pass, one at a time, once the others are done. When both passes run, the closing lines add up both
// runners' summaries, and the run fails when either pass does.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const EXCLUSIVE = '.exclusive.test.ts';
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY_LINE = new RegExp(`^(?:# |ℹ )(${COUNTS.join('|')}) (\\d+)$`);

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Runs one pass, passing its output through; resolves with its exit status and the counts it closed with. */
async function runPass(files, concurrency) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
  return { status: code ?? 1, counts };
}

// Three files at a time on two cores: most files spend their time waiting (quote deadlines, fund windows, chain
// polls, child processes starting); measured, ten of the slowest used 0.63 of a core each on average.
const SHARED_CONCURRENCY = 3;

// Command-line tests run the command as the package installs it (test/cli/cli-process.ts), from a dist/ no older
// than src/: starting from JavaScript takes about half the time and CPU of compiling through tsx, and the suite
// starts the command a few hundred times.
const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ensure-built.ts'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
process.env.LNSWAP_TEST_CLI_ENTRY = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');

const files = process.argv.length > 2 ? process.argv.slice(2) : findTests('test').sort();
const passes = [
  { name: 'shared', files: files.filter((file) => !file.endsWith(EXCLUSIVE)), concurrency: SHARED_CONCURRENCY },
  { name: 'exclusive (one file at a time)', files: files.filter((file) => file.endsWith(EXCLUSIVE)), concurrency: 1 },
].filter((pass) => pass.files.length > 0);

const results = [];
for (const pass of passes) results.push({ ...pass, ...(await runPass(pass.files, pass.concurrency)) });

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
