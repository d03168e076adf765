import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { toFunctionSelector, toFunctionSignature, type AbiFunction } from 'viem';
import {
  SWAP_CONTRACT_ARTIFACT_ABI,
  SWAP_CONTRACT_BYTECODE,
} from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { SWAP_CONTRACT_ABI } from '../../../src/domain/ethereum.js';
import { ARTIFACT_PATH, compileSwapContract, renderArtifactModule } from '../../../scripts/swap-contract-compiler.js';

const STALE = 'the committed artifact no longer matches contracts/SwapContract.sol: run npm run build:contract';

function functionsOf(abi: readonly unknown[]): AbiFunction[] {
  return (abi as { type: string }[]).filter((item): item is AbiFunction => item.type === 'function');
}

describe('the committed swap contract artifact', () => {
  test('is what solc makes of the source today', () => {
    const compiled = compileSwapContract();
    assert.deepEqual(SWAP_CONTRACT_ARTIFACT_ABI, compiled.abi, STALE);
    assert.equal(SWAP_CONTRACT_BYTECODE, compiled.bytecode, STALE);
    assert.equal(readFileSync(ARTIFACT_PATH, 'utf8'), renderArtifactModule(compiled), STALE);
  });

  test('has the selectors fixed by the wire decisions', () => {
    const selectors = new Map(functionsOf(SWAP_CONTRACT_ARTIFACT_ABI).map((item) => [toFunctionSignature(item), toFunctionSelector(item)]));
    assert.equal(selectors.get('fund(bytes16,bytes32,address)'), '0x478820ce');
    assert.equal(selectors.get('fundToken(bytes16,bytes32,address,address,uint256)'), '0xf1f9ff30');
    assert.equal(selectors.get('claim(bytes16,address,bytes32)'), '0x2580145c');
    assert.equal(selectors.get('refund(bytes16)'), '0xdfdecfaf');
    assert.equal(selectors.get('adminRefund(bytes16,address)'), '0xc1416956');
  });

  test("agrees with the domain's SWAP_CONTRACT_ABI, function by function", () => {
    const compiled = new Map(functionsOf(SWAP_CONTRACT_ARTIFACT_ABI).map((item) => [item.name, item]));
    for (const expected of SWAP_CONTRACT_ABI) {
      const actual = compiled.get(expected.name);
      assert.ok(actual, `the contract has no ${expected.name}`);
      assert.equal(toFunctionSignature(actual), toFunctionSignature(expected));
      assert.equal(actual.stateMutability, expected.stateMutability);
      assert.deepEqual(actual.inputs.map(({ name, type }) => ({ name, type })), expected.inputs);
      assert.deepEqual(actual.outputs, expected.outputs);
    }
  });
});
