// `npm run build:contract`: compiles the committed contracts and rewrites their artifact modules and the swap
// contracts' runtime code module.
import { writeFileSync } from 'node:fs';
import {
  compileCommittedContracts,
  renderArtifactModule,
  renderRuntimeCodeModule,
  RUNTIME_CODE_MODULE_PATH,
} from './swap-contract-compiler.js';

const committed = compileCommittedContracts();
for (const [contract, compiled] of committed) {
  writeFileSync(contract.artifactPath, renderArtifactModule(contract, compiled));
  const initCodeBytes = (compiled.bytecode.length - 2) / 2;
  process.stdout.write(
    `wrote ${contract.artifactPath} (solc ${compiled.compilerVersion}, ${initCodeBytes} bytes of init code)\n`,
  );
}
writeFileSync(RUNTIME_CODE_MODULE_PATH, renderRuntimeCodeModule(committed));
process.stdout.write(`wrote ${RUNTIME_CODE_MODULE_PATH} (the swap contracts' runtime code)\n`);
