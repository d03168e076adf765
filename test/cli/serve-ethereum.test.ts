import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { configuration, seedStore } from '../support/fixtures.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { deployHostileContract } from '../support/hostile-contracts.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { runCli, startCli, waitForLine } from '../support/cli/cli-process.js';

async function storeOffering(markets: string[]): Promise<FreshStore> {
  const fresh = await openFreshStore('sqlite');
  await seedStore(fresh.store, { configuration: configuration({ markets, providers: [] }) });
  // The CLI opens the database itself.
  await fresh.store.close();
  return fresh;
}

describe(
  'lnswap serve --ethereum-rpc refuses a node whose chain does not fit the markets',
  { skip: anvilSkipReason },
  () => {
    let mainnet: AnvilNode;
    let local: AnvilNode;
    const contracts = new Map<AnvilNode, string>();
    const stores: FreshStore[] = [];

    before(async () => {
      [mainnet, local] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil()]);
      for (const node of [mainnet, local]) contracts.set(node, await node.deploySwapContract(20n));
    });
    after(async () => {
      await Promise.all([mainnet?.stop(), local?.stop()]);
      await Promise.all(stores.map((fresh) => fresh.dispose().catch(() => undefined)));
    });

    const serveArgs = (fresh: FreshStore, node: AnvilNode) => [
      'serve',
      '--db',
      fresh.url,
      '--port',
      '0',
      '--ethereum-rpc',
      node.rpcUrl,
      '--swap-contract',
      contracts.get(node) ?? '',
    ];

    test('a simnet market on chain id 1, and a mainnet market on chain id 31337, end startup with exit 1', async () => {
      const simnet = await storeOffering(['BTC_LBTC', 'SETH_LSBTC']);
      const mainnetMarkets = await storeOffering(['BTC_LBTC', 'ETH_LBTC']);
      stores.push(simnet, mainnetMarkets);
      const onMainnet = await runCli(serveArgs(simnet, mainnet));
      assert.equal(onMainnet.code, 1);
      assert.match(
        onMainnet.stderr,
        /^lnswap serve: refusing to watch the Ethereum node: the Ethereum node's chain id 1 does not fit the offered market SETH_LSBTC \(simnet\)/,
      );
      const onLocal = await runCli(serveArgs(mainnetMarkets, local));
      assert.equal(onLocal.code, 1);
      assert.match(onLocal.stderr, /chain id 31337 does not fit the offered market ETH_LBTC \(mainnet\)/);
    });

    test("a --swap-contract whose code is not lnswap's swap contract ends startup with exit 1, saying why", async () => {
      const simnet = await storeOffering(['BTC_LBTC', 'SETH_LSBTC']);
      stores.push(simnet);
      const genuine = contracts.get(local)!;
      const lookAlike = await deployHostileContract(local, 'LookAlikeSwapContract', [20n, local.accounts[4]!.address]);
      // A proxy in front of the genuine contract is refused alike (test/chains/ethereum/swap-contract-version.test.ts).
      const refused = await runCli(serveArgs(simnet, local).map((arg) => (arg === genuine ? lookAlike : arg)));
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(`^lnswap serve: ${lookAlike} is not lnswap's swap contract: [^\\n]+\\n$`, 'i'),
      );
    });

    test('a simnet market on chain id 31337 is served and watched', async () => {
      const simnet = await storeOffering(['BTC_LBTC', 'SETH_LSBTC']);
      stores.push(simnet);
      const child = startCli(serveArgs(simnet, local), { env: { LOG_LEVEL: 'info' } });
      try {
        await waitForLine(child, (line) => (line.includes('"watching the chain"') ? true : undefined));
        child.kill('SIGTERM');
        const [code] = await once(child, 'close');
        assert.equal(code, 0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  },
);
