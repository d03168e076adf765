/** `lnswap serve` through an Ethereum JSON-RPC node answering each of its calls wrongly: test/support/serve-against-hostile-node.ts. */
import { anvilSkipReason } from '../support/anvil.js';
import { describeServeAgainstHostileNode, ethereumUnderTest } from '../support/serve-against-hostile-node.js';

describeServeAgainstHostileNode('Ethereum', ethereumUnderTest, anvilSkipReason);
