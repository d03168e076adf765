import { ensureBuilt } from '../../scripts/ensure-built.js';
import { prepareSnapshot } from '../dataset/datasets.js';
import { readSettings } from '../settings.js';

/** Builds (or finds) the snapshot the codec trial reads, without the PostgreSQL copy; prints its path. */
ensureBuilt((message) => process.stderr.write(`[bench] ${message}\n`));
process.stdout.write(`${await prepareSnapshot(readSettings().orders)}\n`);
