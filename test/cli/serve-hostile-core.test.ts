/** `lnswap serve` through Bitcoin Core's JSON-RPC answering each of its calls wrongly: test/support/serve-against-hostile-node.ts. */
import { describeServeAgainstHostileNode, bitcoinUnderTest } from '../support/serve-against-hostile-node.js';

describeServeAgainstHostileNode('Bitcoin Core', () => bitcoinUnderTest('Bitcoin Core'), false);
