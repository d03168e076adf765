// Compiles the committed contracts (the swap contract and the demo ERC-20) with the pinned solc from npm and
// renders their artifact modules; the build script writes them, a test checks the committed copies still match.
// Tests compile their own hostile contracts through `compileSolidity` with the same settings.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Solc from 'solc';
import { packageRoot } from '../src/cli/package-root.js';

let solc: typeof Solc | undefined;

/** solc, loaded on the first compile: loading it takes a CPU-second, which a test reading a cache never needs. */
function loadedSolc(): typeof Solc {
  solc ??= createRequire(import.meta.url)('solc') as typeof Solc;
  return solc;
}

// Cancun: supported by every network the service targets and by Anvil; newer opcodes are not needed.
const EVM_VERSION = 'cancun';

export interface CompiledContract {
  readonly compilerVersion: string;
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
}

/** A contract whose compiled form is committed under src/, so the service never needs solc at run time. */
export interface CommittedContract {
  readonly contractName: string;
  /** Relative to the repository root; also the source name solc sees. */
  readonly sourceName: string;
  readonly sourcePath: string;
  /** The committed sources it imports (source name -> path), handed to solc beside its own. */
  readonly imports: Readonly<Record<string, string>>;
  readonly artifactPath: string;
  /** Prefix of the module's exported constants, e.g. SWAP_CONTRACT. */
  readonly constantPrefix: string;
}

function committedContract(
  contractName: string,
  constantPrefix: string,
  artifactFile: string,
  importedContracts: readonly string[] = [],
): CommittedContract {
  // From the repository's root: the same from scripts/ (tsx) and from build/scripts/ (transpiled by npm test).
  const pathOf = (sourceName: string) => join(packageRoot(), sourceName);
  const sourceName = `contracts/${contractName}.sol`;
  const importNames = importedContracts.map((name) => `contracts/${name}.sol`);
  return {
    contractName,
    sourceName,
    sourcePath: pathOf(sourceName),
    imports: Object.fromEntries(importNames.map((name) => [name, pathOf(name)])),
    artifactPath: pathOf(artifactFile),
    constantPrefix,
  };
}

export const SWAP_CONTRACT = committedContract(
  'SwapContract',
  'SWAP_CONTRACT',
  'src/chains/ethereum/swap-contract-artifact.ts',
);
export const DEMO_TOKEN = committedContract('DemoToken', 'DEMO_TOKEN', 'src/demo/ethereum/demo-token-artifact.ts');
/** The third version inherits the second: solc compiles it with the second's source beside its own. */
export const SWAP_CONTRACT_V3 = committedContract(
  'SwapContractV3',
  'SWAP_CONTRACT_V3',
  'src/chains/ethereum/swap-contract-v3-artifact.ts',
  ['SwapContract'],
);
export const COMMITTED_CONTRACTS: readonly CommittedContract[] = [SWAP_CONTRACT, SWAP_CONTRACT_V3, DEMO_TOKEN];

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles Solidity sources (source name -> text) and returns every contract by name. Warnings fail like errors:
 * a contract the tests or the service rely on compiles cleanly.
 */
export function compileSolidity(sources: Readonly<Record<string, string>>): Map<string, CompiledContract> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const compiler = loadedSolc();
  const output = JSON.parse(compiler.compile(JSON.stringify(input))) as SolcOutput;
  const problems = (output.errors ?? []).filter((error) => error.severity !== 'info');
  if (problems.length > 0) {
    throw new Error(`solc reported:\n${problems.map((problem) => problem.formattedMessage).join('\n')}`);
  }
  const compilerVersion = compiler.version();
  const compiled = new Map<string, CompiledContract>();
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(contracts)) {
      compiled.set(name, { compilerVersion, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` });
    }
  }
  return compiled;
}

/**
 * Every committed contract from one solc run: the third version imports the second, so compiling them together
 * builds the second once (its bytecode, metadata hash included, is the same as when compiled alone).
 */
export function compileCommittedContracts(): Map<CommittedContract, CompiledContract> {
  const sources: Record<string, string> = {};
  for (const contract of COMMITTED_CONTRACTS) {
    for (const [name, path] of Object.entries({ ...contract.imports, [contract.sourceName]: contract.sourcePath })) {
      sources[name] = readFileSync(path, 'utf8');
    }
  }
  const compiled = compileSolidity(sources);
  return new Map(
    COMMITTED_CONTRACTS.map((contract) => {
      const result = compiled.get(contract.contractName);
      if (result === undefined) throw new Error(`solc produced no ${contract.contractName}`);
      return [contract, result];
    }),
  );
}

export function renderArtifactModule(contract: CommittedContract, compiled: CompiledContract): string {
  const prefix = contract.constantPrefix;
  return `// Generated by \`npm run build:contract\` from ${contract.sourceName} with solc ${compiled.compilerVersion}.
// Do not edit: test/chains/ethereum/swap-contract-artifact.test.ts fails when this no longer matches the source.

export const ${prefix}_COMPILER_VERSION = ${JSON.stringify(compiled.compilerVersion)};

export const ${prefix}_ARTIFACT_ABI = ${JSON.stringify(compiled.abi, null, 2)} as const;

export const ${prefix}_BYTECODE =
  ${JSON.stringify(compiled.bytecode)} as const;
`;
}
