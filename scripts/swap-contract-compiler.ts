// Compiles the committed contracts (the swap contract and the demo ERC-20) with the pinned solc from npm and
// renders their artifact modules; the build script writes them, a test checks the committed copies still match.
// Tests compile their own hostile contracts through `compileSolidity` with the same settings.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Solc from 'solc';
import { packageRoot } from '../src/cli/package-root.js';
import type { SwapContractVersion } from '../src/domain/order.js';

let solc: typeof Solc | undefined;

/** solc, loaded on the first compile: loading it takes a CPU-second, which a test reading a cache never needs. */
function loadedSolc(): typeof Solc {
  solc ??= createRequire(import.meta.url)('solc') as typeof Solc;
  return solc;
}

// Cancun: supported by every network the service targets and by Anvil; newer opcodes are not needed.
const EVM_VERSION = 'cancun';

/** Where solc left room for an immutable in the runtime code: `length` bytes from byte `start`. */
export interface ImmutableReference {
  readonly start: number;
  readonly length: number;
}

export interface CompiledContract {
  readonly compilerVersion: string;
  readonly abi: readonly unknown[];
  /** The init code: the constructor, which returns the runtime code with the immutables written in. */
  readonly bytecode: `0x${string}`;
  /** The runtime code as solc emits it, every immutable's room zeroed, CBOR metadata at the end. */
  readonly deployedBytecode: `0x${string}`;
  /** Each immutable's rooms in `deployedBytecode`, by the immutable's name. */
  readonly immutableReferences: Readonly<Record<string, readonly ImmutableReference[]>>;
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
  /** The swap contract version whose deployments the runtime code identifies; none for other contracts. */
  readonly swapContractVersion?: SwapContractVersion;
}

function committedContract(
  contractName: string,
  constantPrefix: string,
  artifactFile: string,
  importedContracts: readonly string[] = [],
  swapContractVersion?: SwapContractVersion,
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
    ...(swapContractVersion === undefined ? {} : { swapContractVersion }),
  };
}

export const SWAP_CONTRACT = committedContract(
  'SwapContract',
  'SWAP_CONTRACT',
  'src/chains/ethereum/swap-contract-artifact.ts',
  [],
  2,
);
export const DEMO_TOKEN = committedContract('DemoToken', 'DEMO_TOKEN', 'src/demo/ethereum/demo-token-artifact.ts');
/** The third version inherits the second: solc compiles it with the second's source beside its own. */
export const SWAP_CONTRACT_V3 = committedContract(
  'SwapContractV3',
  'SWAP_CONTRACT_V3',
  'src/chains/ethereum/swap-contract-v3-artifact.ts',
  ['SwapContract'],
  3,
);
export const COMMITTED_CONTRACTS: readonly CommittedContract[] = [SWAP_CONTRACT, SWAP_CONTRACT_V3, DEMO_TOKEN];

/** The module the verification of a deployed swap contract reads its templates from (generated, in src/domain). */
export const RUNTIME_CODE_MODULE_PATH = join(packageRoot(), 'src/domain/swap-contract-runtime-code.ts');

interface SolcAstNode {
  nodeType?: string;
  id?: number;
  name?: string;
  mutability?: string;
  nodes?: SolcAstNode[];
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  sources?: Record<string, { ast: SolcAstNode }>;
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: {
          bytecode: { object: string };
          deployedBytecode: { object: string; immutableReferences?: Record<string, ImmutableReference[]> };
        };
      }
    >
  >;
}

/** Every immutable state variable's name by its AST id: solc keys `immutableReferences` by the id. */
function immutableNames(output: SolcOutput): Map<string, string> {
  const names = new Map<string, string>();
  for (const { ast } of Object.values(output.sources ?? {})) {
    for (const unit of ast.nodes ?? []) {
      for (const member of unit.nodes ?? []) {
        const immutable = member.nodeType === 'VariableDeclaration' && member.mutability === 'immutable';
        if (immutable && member.id !== undefined && member.name !== undefined)
          names.set(String(member.id), member.name);
      }
    }
  }
  return names;
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
      outputSelection: {
        '*': {
          '': ['ast'],
          '*': [
            'abi',
            'evm.bytecode.object',
            'evm.deployedBytecode.object',
            'evm.deployedBytecode.immutableReferences',
          ],
        },
      },
    },
  };
  const compiler = loadedSolc();
  const output = JSON.parse(compiler.compile(JSON.stringify(input))) as SolcOutput;
  const problems = (output.errors ?? []).filter((error) => error.severity !== 'info');
  if (problems.length > 0) {
    throw new Error(`solc reported:\n${problems.map((problem) => problem.formattedMessage).join('\n')}`);
  }
  const compilerVersion = compiler.version();
  const namesById = immutableNames(output);
  const compiled = new Map<string, CompiledContract>();
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(contracts)) {
      const { bytecode, deployedBytecode } = contract.evm;
      const immutableReferences = Object.fromEntries(
        Object.entries(deployedBytecode.immutableReferences ?? {}).map(([id, references]) => [
          namesById.get(id) ?? id,
          references.map(({ start, length }) => ({ start, length })),
        ]),
      );
      compiled.set(name, {
        compilerVersion,
        abi: contract.abi,
        bytecode: `0x${bytecode.object}`,
        deployedBytecode: `0x${deployedBytecode.object}`,
        immutableReferences,
      });
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

/**
 * The domain module of every swap contract version's runtime code, by which `readSwapContractCode` recognises a
 * deployment: the code exactly as solc emits it (its CBOR metadata included), and where the `owner` and
 * `refundDelay` immutables sit in it.
 */
export function renderRuntimeCodeModule(compiled: ReadonlyMap<CommittedContract, CompiledContract>): string {
  const templates = [...compiled]
    .filter(([contract]) => contract.swapContractVersion !== undefined)
    .sort(([a], [b]) => (a.swapContractVersion ?? 0) - (b.swapContractVersion ?? 0))
    .map(([contract, result]) => {
      const { owner, refundDelay } = result.immutableReferences;
      if (owner === undefined || refundDelay === undefined) {
        throw new Error(`${contract.contractName} has no owner or refundDelay immutable`);
      }
      return `  {
    version: ${contract.swapContractVersion},
    source: ${JSON.stringify(contract.sourceName)},
    compilerVersion: ${JSON.stringify(result.compilerVersion)},
    immutables: {
      owner: ${JSON.stringify(owner)},
      refundDelay: ${JSON.stringify(refundDelay)},
    },
    code: ${JSON.stringify(result.deployedBytecode)},
  },
`;
    });
  return `// Generated by \`npm run build:contract\` from the swap contracts under contracts/.
// Do not edit: test/chains/ethereum/swap-contract-artifact.test.ts fails when this no longer matches the source.

import type { SwapContractVersion } from './order.js';

/** Where a deployment writes an immutable into its runtime code: \`length\` bytes from byte \`start\`. */
export interface ImmutableRoom {
  readonly start: number;
  readonly length: number;
}

/** One swap contract version's runtime code as solc emits it, each immutable's room zeroed. */
export interface SwapContractRuntimeTemplate {
  readonly version: SwapContractVersion;
  readonly source: string;
  readonly compilerVersion: string;
  readonly immutables: { readonly owner: readonly ImmutableRoom[]; readonly refundDelay: readonly ImmutableRoom[] };
  readonly code: \`0x\${string}\`;
}

export const SWAP_CONTRACT_RUNTIME_TEMPLATES: readonly SwapContractRuntimeTemplate[] = [
${templates.join('')}];
`;
}
