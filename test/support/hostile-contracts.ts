// The Solidity contracts under test/support/contracts/ (hostile claimers and tokens), compiled with the pinned
// solc the first time a test asks for one and kept in memory for the rest of the run, and on disk for the next
// process: compiling them costs about 3.5 CPU-seconds, loading solc included, in each file that deploys one.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Abi, Account, Address } from 'viem';
import { compileSolidity, type CompiledContract } from '../../scripts/swap-contract-compiler.js';
import type { AnvilNode } from './anvil.js';
import { repositoryPath } from './repository.js';

const SOURCE_DIRECTORY = repositoryPath('test', 'support', 'contracts');
// The source names solc sees; `import "./X.sol"` between them resolves against these.
const SOURCE_NAME_PREFIX = 'test/support/contracts/';

export type HostileContractName =
  | 'ReenteringAccount'
  | 'ReenteringToken'
  | 'FalseReturningToken'
  | 'NoReturnToken'
  | 'FeeOnTransferToken'
  | 'LookAlikeSwapContract'
  | 'DelegatingProxy'
  | 'RuntimeCodeDeployer';

let compiled: Map<string, CompiledContract> | undefined;

/**
 * Where the compiled contracts of `sources` are kept: named by what decides the output (the sources, the compiler
 * module with its settings, the pinned solc's version), so a changed contract or compiler is compiled afresh.
 */
function cacheFile(sources: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(createRequire(import.meta.url).resolve('solc/package.json')));
  hash.update(readFileSync(repositoryPath('scripts', 'swap-contract-compiler.ts')));
  hash.update(JSON.stringify(sources));
  return join(tmpdir(), 'lnswap-test-contracts', `${hash.digest('hex')}.json`);
}

function compileAll(): Map<string, CompiledContract> {
  const sources = Object.fromEntries(
    readdirSync(SOURCE_DIRECTORY)
      .filter((file) => file.endsWith('.sol'))
      .map((file) => [`${SOURCE_NAME_PREFIX}${file}`, readFileSync(join(SOURCE_DIRECTORY, file), 'utf8')]),
  );
  const file = cacheFile(sources);
  try {
    return new Map(JSON.parse(readFileSync(file, 'utf8')) as [string, CompiledContract][]);
  } catch {
    const contracts = compileSolidity(sources);
    // Written aside and renamed: a file compiling at the same moment reads a whole cache or none.
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify([...contracts]));
    renameSync(partial, file);
    return contracts;
  }
}

export function hostileContract(name: HostileContractName): { abi: Abi; bytecode: `0x${string}` } {
  compiled ??= compileAll();
  const contract = compiled.get(name);
  if (contract === undefined) throw new Error(`test/support/contracts has no contract ${name}`);
  return { abi: contract.abi as Abi, bytecode: contract.bytecode };
}

/** Deploys a hostile contract from `from` (default accounts[0]) with `value` wei sent to its constructor. */
export async function deployHostileContract(
  node: AnvilNode,
  name: HostileContractName,
  args: readonly unknown[] = [],
  options: { from?: Account; value?: bigint } = {},
): Promise<Address> {
  const { abi, bytecode } = hostileContract(name);
  const wallet = node.wallet(options.from);
  const hash = await wallet.deployContract({ abi, bytecode, args, value: options.value ?? 0n });
  const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || receipt.contractAddress == null) throw new Error(`deploying ${name} failed`);
  return receipt.contractAddress;
}
