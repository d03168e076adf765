import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { repositoryPath } from '../support/repository.js';

const { forbidden } = createRequire(import.meta.url)(repositoryPath('.dependency-cruiser.cjs')) as {
  forbidden: IForbiddenRuleType[];
};

/** The rule broken by each import from → to in `result`, as "rule: from → to". */
function violations(result: ICruiseResult): string[] {
  return result.summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`).sort();
}

/** Cruises a made-up tree of `files` (path → source) with the project's rules. */
async function cruiseTree(root: string, files: Record<string, string>): Promise<string[]> {
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const { output } = await cruise(['src'], { baseDir: root, validate: true, ruleSet: { forbidden } });
  assert.ok(typeof output !== 'string');
  return violations(output);
}

describe('the dependency rules', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'lnswap-dependency-rules-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('refuse I/O, project imports and cycles in src/domain, and HTTP and socket.io importing each other', async () => {
    const found = await cruiseTree(join(root, 'broken'), {
      'src/domain/reads-files.js': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
      'src/domain/uses-store.js': "import { store } from '../store/store.js';\nexport const used = store;\n",
      'src/domain/a.js': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/domain/b.js': "import { a } from './a.js';\nexport const b = () => a;\n",
      'src/store/store.js': 'export const store = {};\n',
      'src/store/sqlite/sqlite-store.js': 'export const sqlite = {};\n',
      'src/api/route.js':
        "import { acks } from '../ws/acks.js';\nimport { sqlite } from '../store/sqlite/sqlite-store.js';\nexport const route = [acks, sqlite];\n",
      'src/ws/acks.js': 'export const acks = {};\n',
    });
    assert.deepEqual(found, [
      'api-on-interfaces: src/api/route.js → src/store/sqlite/sqlite-store.js',
      'api-on-interfaces: src/api/route.js → src/ws/acks.js',
      'domain-does-no-io: src/domain/reads-files.js → fs',
      'domain-stands-alone: src/domain/uses-store.js → src/store/store.js',
      'no-circular: src/domain/a.js → src/domain/b.js',
    ]);
  });

  test('refuse the transports building the engine or its parts', async () => {
    const found = await cruiseTree(join(root, 'engine-built-below'), {
      'src/engine/build-engine.js':
        "import { desk } from './lifecycle/quote-desk.js';\nexport const buildEngine = () => desk;\n",
      'src/engine/lifecycle/quote-desk.js': 'export const desk = {};\n',
      'src/engine/lifecycle/order-transitions.js': 'export const transitions = {};\n',
      'src/ws/server.js':
        "import { buildEngine } from '../engine/build-engine.js';\nexport const server = buildEngine;\n",
      'src/api/server.js':
        "import { desk } from '../engine/lifecycle/quote-desk.js';\nimport { transitions } from '../engine/lifecycle/order-transitions.js';\nexport const server = [desk, transitions];\n",
      'src/service.js':
        "import { buildEngine } from './engine/build-engine.js';\nexport const service = buildEngine;\n",
    });
    assert.deepEqual(found, [
      'only-the-composition-root-builds-the-engine: src/ws/server.js → src/engine/build-engine.js',
      'transports-receive-engine-parts: src/api/server.js → src/engine/lifecycle/order-transitions.js',
      'transports-receive-engine-parts: src/api/server.js → src/engine/lifecycle/quote-desk.js',
    ]);
  });

  test("refuse the provider daemon reaching into the service's store, engine or socket.io", async () => {
    const found = await cruiseTree(join(root, 'provider'), {
      'src/provider/daemon.js':
        "import { store } from '../store/store.js';\nimport { engine } from '../engine/engine.js';\nimport { chain } from '../chains/chain.js';\nexport const daemon = [store, engine, chain];\n",
      'src/store/store.js': 'export const store = {};\n',
      'src/engine/engine.js': 'export const engine = {};\n',
      'src/chains/chain.js': 'export const chain = {};\n',
    });
    assert.deepEqual(found, [
      'provider-on-domain-chains-and-client: src/provider/daemon.js → src/engine/engine.js',
      'provider-on-domain-chains-and-client: src/provider/daemon.js → src/store/store.js',
    ]);
  });

  test("refuse the client reaching past the wire's shapes or into Node, and the provider reading the wire but through it", async () => {
    const found = await cruiseTree(join(root, 'client'), {
      'src/client/reads.js':
        "import { shapes } from '../wire/shapes.js';\nimport { rules } from '../domain/rules.js';\nimport { chain } from '../chains/chain.js';\nimport { Buffer } from 'node:buffer';\nexport const reads = [shapes, rules, chain, Buffer];\n",
      'src/wire/shapes.js': 'export const shapes = {};\n',
      'src/domain/rules.js': 'export const rules = {};\n',
      'src/chains/chain.js': 'export const chain = {};\n',
      'src/provider/daemon.js':
        "import { reads } from '../client/reads.js';\nimport { shapes } from '../wire/shapes.js';\nexport const daemon = [reads, shapes];\n",
    });
    assert.deepEqual(found, [
      'client-on-domain-and-wire: src/client/reads.js → src/chains/chain.js',
      'client-uses-no-node-module: src/client/reads.js → buffer',
      'provider-on-domain-chains-and-client: src/provider/daemon.js → src/wire/shapes.js',
    ]);
  });

  test('refuse the demo machinery imported by anything but the demo command', async () => {
    const found = await cruiseTree(join(root, 'demo'), {
      'src/demo/live-demo.js': 'export const runLiveDemo = () => undefined;\n',
      'src/cli/commands/demo.js':
        "import { runLiveDemo } from '../../demo/live-demo.js';\nexport const demo = runLiveDemo;\n",
      'src/cli/commands/serve.js':
        "import { runLiveDemo } from '../../demo/live-demo.js';\nexport const serve = runLiveDemo;\n",
      'src/service.js': "import { runLiveDemo } from './demo/live-demo.js';\nexport const service = runLiveDemo;\n",
    });
    assert.deepEqual(found, [
      'only-the-demo-command-imports-the-demo: src/cli/commands/serve.js → src/demo/live-demo.js',
      'only-the-demo-command-imports-the-demo: src/service.js → src/demo/live-demo.js',
    ]);
  });

  test('pass a tree that keeps them', async () => {
    const found = await cruiseTree(join(root, 'kept'), {
      'src/domain/rules.js': "import { createHash } from 'node:crypto';\nexport const hash = createHash;\n",
      'src/store/store.js': "import { hash } from '../domain/rules.js';\nexport const store = hash;\n",
      'src/api/route.js': "import { store } from '../store/store.js';\nexport const route = store;\n",
    });
    assert.deepEqual(found, []);
  });
});
