import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { connectWallet } from '../../../src/chains/ethereum/wallet-connection.js';
import { signCooperativeRefunds } from '../../../src/provider/ethereum/sign-cooperative-refunds.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';

/**
 * Run as a child process, as the daemon gives an order up: signs the cooperative refund of `funder`'s slot with the
 * payout key (`signCooperativeRefunds`), writes it down (`recordRefundSignatures`), then kills itself with SIGKILL
 * before anything is sent to the service.
 */
const [stateFile, rpcUrl, contract, orderId, funder, payoutKey] = process.argv.slice(2);
if (payoutKey === undefined) {
  throw new Error('usage: kill-after-refund-signed.ts <state> <rpc> <contract> <orderId> <funder> <payoutKey>');
}
const state = ProviderState.open(stateFile!);
const quote = state.quote(orderId!);
if (quote === undefined) throw new Error(`no quote of order ${orderId}`);
const { publicClient, walletClient } = await connectWallet(rpcUrl!, privateKeyToAccount(payoutKey as Hex));
const refunds = await signCooperativeRefunds(
  { publicClient, wallet: walletClient, contract: contract as Hex },
  orderId!,
  [funder as Hex],
);
if (refunds.length !== 1) throw new Error('the slot holds nothing to refund');
if (state.recordRefundSignatures(orderId!, quote.paymentHash, refunds, Date.now()) !== 'recorded') {
  throw new Error('a payment is under way');
}
process.kill(process.pid, 'SIGKILL');
