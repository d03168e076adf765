// Preloaded into a server run under `node --cpu-prof`: V8 writes the profile only when the process exits normally,
// and a SIGTERM left to its default action would end the process without one.
process.on('SIGTERM', () => process.exit(0));
