import { datasetKeys, generateChunk } from './order-generator.js';

/**
 * A child process that generates the chunks its parent asks for (see parallel-generation.ts): signing a million
 * invoices and building their HTLCs is CPU-bound, and a second process uses the second core.
 */
const totalOrders = Number(process.argv[2]);
const keys = datasetKeys();

process.on('message', (index: number) => {
  process.send!(generateChunk(totalOrders, index, keys));
});
process.on('disconnect', () => process.exit(0));
