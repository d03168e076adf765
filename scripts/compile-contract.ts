// `npm run build:contract`: compiles the committed contracts and rewrites their artifact modules.
import { writeFileSync } from 'node:fs';
import { compileCommittedContracts, renderArtifactModule } from './swap-contract-compiler.js';

for (const [contract, compiled] of compileCommittedContracts()) {
  writeFileSync(contract.artifactPath, renderArtifactModule(contract, compiled));
  const initCodeBytes = (compiled.bytecode.length - 2) / 2;
  process.stdout.write(
    `wrote ${contract.artifactPath} (solc ${compiled.compilerVersion}, ${initCodeBytes} bytes of init code)\n`,
  );
}
