import type { Account, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem';
import { swapContractVersionOfCode } from '../../chains/ethereum/swap-contract-version.js';
import { cooperativeRefundTypedData } from '../../domain/cooperative-refund.js';
import type { SwapContractVersion } from '../../domain/order.js';
import { readEthereumSlot } from './ethereum-claim.js';

/** What signing a cooperative refund reads and signs with: the contract, its chain, and the payout account. */
export interface CooperativeRefundSigner {
  publicClient: PublicClient<Transport, Chain>;
  /** Signs as the payout account: the claimer of every slot made out to the provider. */
  wallet: WalletClient<Transport, Chain, Account>;
  contract: Hex;
}

/**
 * The contract's version, recognised once by its code: only the third takes cooperative refunds. Rejects with
 * `NotSwapContract` for an address whose code is not lnswap's swap contract (or a node answering what is not code),
 * and is asked again next time.
 */
export function contractVersionReader(signer: CooperativeRefundSigner): () => Promise<SwapContractVersion> {
  let version: Promise<SwapContractVersion> | undefined;
  return () => {
    version ??= signer.publicClient
      .getCode({ address: signer.contract })
      .then((code: unknown) => swapContractVersionOfCode(signer.contract, code))
      .catch((error: unknown) => {
        version = undefined;
        throw error;
      });
    return version;
  };
}

/**
 * The payout account's EIP-712 cooperative refund of each of `funders`' slots of the order that still holds money
 * (a slot claimed or refunded already has nothing to give back), for the contract and the chain its node names. The
 * signatures are only made here: they leave the daemon once `recordRefundSignatures` has written them down.
 */
export async function signCooperativeRefunds(
  signer: CooperativeRefundSigner,
  orderId: string,
  funders: readonly Hex[],
): Promise<{ funder: string; signature: Hex }[]> {
  const chainId = await signer.publicClient.getChainId();
  const domain = { chainId, verifyingContract: signer.contract };
  const signed: { funder: string; signature: Hex }[] = [];
  for (const funder of funders) {
    const slot = await readEthereumSlot(signer.publicClient, signer.contract, orderId, funder);
    if (slot.state !== 'funded') continue;
    const signature = await signer.wallet.signTypedData({
      account: signer.wallet.account,
      ...cooperativeRefundTypedData(orderId, funder, domain),
    });
    signed.push({ funder: funder.toLowerCase(), signature: signature.toLowerCase() as Hex });
  }
  return signed;
}
