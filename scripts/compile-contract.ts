// `npm run build:contract`: compiles the swap contract and rewrites its committed artifact module.
import { writeFileSync } from 'node:fs';
import { ARTIFACT_PATH, compileSwapContract, renderArtifactModule } from './swap-contract-compiler.js';

const compiled = compileSwapContract();
writeFileSync(ARTIFACT_PATH, renderArtifactModule(compiled));
const initCodeBytes = (compiled.bytecode.length - 2) / 2;
process.stdout.write(`wrote ${ARTIFACT_PATH} (solc ${compiled.compilerVersion}, ${initCodeBytes} bytes of init code)\n`);
