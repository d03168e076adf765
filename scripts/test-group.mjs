// Runs several transpiled test files in one Node process, one after another, as if they were one file: node:test
// queues every file's top-level tests on the same root and prints one TAP stream with one summary. The files share
// the modules they load (the service, viem, socket.io, Fastify), which each would otherwise load again in a process
// of its own (about a CPU second for a file that starts the service). scripts/run-tests.mjs groups light files so.
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  await import(pathToFileURL(file).href);
}
