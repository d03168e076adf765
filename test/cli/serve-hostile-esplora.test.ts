/** `lnswap serve` through an Esplora API answering each of its calls wrongly: test/support/serve-against-hostile-node.ts. */
import { describeServeAgainstHostileNode, bitcoinUnderTest } from '../support/serve-against-hostile-node.js';

describeServeAgainstHostileNode('Esplora', () => bitcoinUnderTest('Esplora'), false);
