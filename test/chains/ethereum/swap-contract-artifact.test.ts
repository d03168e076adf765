import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, test } from 'node:test';
import { toFunctionSelector, toFunctionSignature, type AbiFunction } from 'viem';
import {
  SWAP_CONTRACT_ARTIFACT_ABI,
  SWAP_CONTRACT_BYTECODE,
} from '../../../src/chains/ethereum/swap-contract-artifact.js';
import {
  SWAP_CONTRACT_V3_ARTIFACT_ABI,
  SWAP_CONTRACT_V3_BYTECODE,
} from '../../../src/chains/ethereum/swap-contract-v3-artifact.js';
import { SWAP_CONTRACT_ABI, SWAP_CONTRACT_SLOTS_ABI } from '../../../src/domain/ethereum.js';
import { DEMO_TOKEN_ARTIFACT_ABI, DEMO_TOKEN_BYTECODE } from '../../../src/demo/ethereum/demo-token-artifact.js';
import { SWAP_CONTRACT_RUNTIME_TEMPLATES } from '../../../src/domain/swap-contract-runtime-code.js';
import {
  DEMO_TOKEN,
  RUNTIME_CODE_MODULE_PATH,
  SWAP_CONTRACT,
  SWAP_CONTRACT_V3,
  compileCommittedContracts,
  renderArtifactModule,
  renderRuntimeCodeModule,
  type CommittedContract,
} from '../../../scripts/swap-contract-compiler.js';

function stale(contract: CommittedContract): string {
  return `the committed artifact no longer matches ${contract.sourceName}: run npm run build:contract`;
}

/** solc runs once for the file: compiling is most of its time. */
const compiledContracts = compileCommittedContracts();

function assertArtifactIsFresh(contract: CommittedContract, abi: readonly unknown[], bytecode: string): void {
  const compiled = compiledContracts.get(contract);
  assert.ok(compiled !== undefined, `${contract.contractName} is a committed contract`);
  assert.deepEqual(abi, compiled.abi, stale(contract));
  assert.equal(bytecode, compiled.bytecode, stale(contract));
  assert.equal(readFileSync(contract.artifactPath, 'utf8'), renderArtifactModule(contract, compiled), stale(contract));
}

function functionsOf(abi: readonly unknown[]): AbiFunction[] {
  return (abi as { type: string }[]).filter((item): item is AbiFunction => item.type === 'function');
}

describe('the committed swap contract artifact', () => {
  test('is what solc makes of the source today', () => {
    assertArtifactIsFresh(SWAP_CONTRACT, SWAP_CONTRACT_ARTIFACT_ABI, SWAP_CONTRACT_BYTECODE);
  });

  test('has the selectors fixed by the wire decisions', () => {
    const selectors = new Map(
      functionsOf(SWAP_CONTRACT_ARTIFACT_ABI).map((item) => [toFunctionSignature(item), toFunctionSelector(item)]),
    );
    assert.equal(selectors.get('fund(bytes16,bytes32,address)'), '0x478820ce');
    assert.equal(selectors.get('fundToken(bytes16,bytes32,address,address,uint256)'), '0xf1f9ff30');
    assert.equal(selectors.get('claim(bytes16,address,bytes32)'), '0x2580145c');
    assert.equal(selectors.get('refund(bytes16)'), '0xdfdecfaf');
    assert.equal(selectors.get('adminRefund(bytes16,address)'), '0xc1416956');
  });

  test("agrees with the domain's SWAP_CONTRACT_ABI and SWAP_CONTRACT_SLOTS_ABI, function by function", () => {
    const compiled = new Map(functionsOf(SWAP_CONTRACT_ARTIFACT_ABI).map((item) => [item.name, item]));
    for (const expected of [...SWAP_CONTRACT_ABI, ...SWAP_CONTRACT_SLOTS_ABI]) {
      const actual = compiled.get(expected.name);
      assert.ok(actual, `the contract has no ${expected.name}`);
      assert.equal(toFunctionSignature(actual), toFunctionSignature(expected));
      assert.equal(actual.stateMutability, expected.stateMutability);
      assert.deepEqual(
        actual.inputs.map(({ name, type }) => ({ name, type })),
        expected.inputs,
      );
      assert.deepEqual(
        actual.outputs.map(({ name, type }) => ({ name, type })),
        expected.outputs,
      );
    }
  });
});

describe('the committed swap contract v3 artifact', () => {
  test('is what solc makes of the source today', () => {
    assertArtifactIsFresh(SWAP_CONTRACT_V3, SWAP_CONTRACT_V3_ARTIFACT_ABI, SWAP_CONTRACT_V3_BYTECODE);
  });

  test("has the second version's selectors and refundCooperative's, as the wire decisions fix them", () => {
    const selectors = new Map(
      functionsOf(SWAP_CONTRACT_V3_ARTIFACT_ABI).map((item) => [toFunctionSignature(item), toFunctionSelector(item)]),
    );
    assert.equal(selectors.get('fund(bytes16,bytes32,address)'), '0x478820ce');
    assert.equal(selectors.get('fundToken(bytes16,bytes32,address,address,uint256)'), '0xf1f9ff30');
    assert.equal(selectors.get('claim(bytes16,address,bytes32)'), '0x2580145c');
    assert.equal(selectors.get('refund(bytes16)'), '0xdfdecfaf');
    assert.equal(selectors.get('adminRefund(bytes16,address)'), '0xc1416956');
    assert.equal(selectors.get('refundCooperative(bytes16,address,bytes)'), '0xd11f56ec');
  });

  test("keeps every function, event, error and the constructor of the second version's ABI as they are", () => {
    const v3 = SWAP_CONTRACT_V3_ARTIFACT_ABI as readonly unknown[];
    for (const item of SWAP_CONTRACT_ARTIFACT_ABI) {
      assert.ok(
        v3.some((candidate) => isDeepStrictEqual(candidate, item)),
        `v3 lacks or changed ${JSON.stringify(item)}`,
      );
    }
    const added = v3.filter((item) => !SWAP_CONTRACT_ARTIFACT_ABI.some((v2) => isDeepStrictEqual(v2, item)));
    assert.deepEqual(added.map((item) => (item as { name: string }).name).sort(), [
      'RefundAuthorized',
      'SignatureLengthInvalid',
      'SignatureSHigh',
      'SignatureUnrecoverable',
      'SignatureVInvalid',
      'SignerNotClaimer',
      'refundCooperative',
    ]);
  });
});

describe('the committed demo token artifact', () => {
  test('is what solc makes of the source today', () => {
    assertArtifactIsFresh(DEMO_TOKEN, DEMO_TOKEN_ARTIFACT_ABI, DEMO_TOKEN_BYTECODE);
  });

  test('has the standard ERC-20 functions and the deployer-only mint', () => {
    const signatures = new Set(functionsOf(DEMO_TOKEN_ARTIFACT_ABI).map((item) => toFunctionSignature(item)));
    for (const signature of [
      'transfer(address,uint256)',
      'transferFrom(address,address,uint256)',
      'approve(address,uint256)',
      'balanceOf(address)',
      'allowance(address,address)',
      'decimals()',
      'mint(address,uint256)',
    ]) {
      assert.ok(signatures.has(signature), `DemoToken lacks ${signature}`);
    }
  });
});

describe("the committed runtime code the swap contracts' deployments are recognised by", () => {
  test('is what solc makes of the sources today, immutables and metadata included', () => {
    const stale = 'src/domain/swap-contract-runtime-code.ts no longer matches contracts/: run npm run build:contract';
    assert.equal(readFileSync(RUNTIME_CODE_MODULE_PATH, 'utf8'), renderRuntimeCodeModule(compiledContracts), stale);
    for (const [contract, version] of [
      [SWAP_CONTRACT, 2],
      [SWAP_CONTRACT_V3, 3],
    ] as const) {
      const compiled = compiledContracts.get(contract)!;
      const template = SWAP_CONTRACT_RUNTIME_TEMPLATES.find((known) => known.version === version);
      assert.ok(template !== undefined, `a template of version ${version}`);
      assert.equal(template.code, compiled.deployedBytecode, stale);
      assert.deepEqual(template.immutables, compiled.immutableReferences, stale);
      assert.equal(template.source, contract.sourceName);
    }
  });

  test("is the runtime code each version's init code deploys, and only the swap contracts have one", () => {
    for (const [bytecode, version] of [
      [SWAP_CONTRACT_BYTECODE, 2],
      [SWAP_CONTRACT_V3_BYTECODE, 3],
    ] as const) {
      const template = SWAP_CONTRACT_RUNTIME_TEMPLATES.find((known) => known.version === version)!;
      assert.ok(bytecode.includes(template.code.slice(2)), `v${version}'s init code carries its runtime code`);
      assert.deepEqual(Object.keys(template.immutables).sort(), ['owner', 'refundDelay']);
    }
    assert.deepEqual(
      SWAP_CONTRACT_RUNTIME_TEMPLATES.map((template) => template.version),
      [2, 3],
    );
  });
});
