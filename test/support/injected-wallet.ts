import type { Page } from 'playwright-core';
import { createPublicClient, http, type Hex } from 'viem';
import type { DemoWallet } from '../../src/demo/ethereum/local-chain.js';

export interface InjectedWallet {
  /** The chain id the wallet reports; `wallet_switchEthereumChain` changes it when `acceptSwitch` allows. */
  chainId: number;
  acceptSwitch: boolean;
  /** Every method the page called, in order, with its parameters. */
  readonly calls: { method: string; params: unknown[] }[];
  readonly sent: Hex[];
}

interface TransactionRequest {
  readonly to: Hex;
  readonly data: Hex;
  readonly value: Hex;
}

/** Chooses the account and the chain the injected wallet reports from the next page loaded on; a fresh record each. */
export type UseWallet = (wallet: DemoWallet, chainId: number) => InjectedWallet;

/**
 * An EIP-1193 provider at `window.ethereum` on every page of `page`, as a browser wallet injects one: it signs and
 * sends with `wallet` (a funded Anvil account, in this process, through viem) and forwards reads to the node. It
 * reports `chainId` and switches only to the node's own chain.
 */
export async function injectWallet(
  page: Page,
  wallet: DemoWallet,
  rpcUrl: string,
  chainId: number,
): Promise<InjectedWallet> {
  return (await injectSwitchableWallet(page, rpcUrl))(wallet, chainId);
}

/**
 * The provider of injectWallet, installed once on `page`, with its account and chain chosen by the returned function
 * before each page is loaded: one page serves visits by several users, so no page (and renderer) is opened per visit.
 */
export async function injectSwitchableWallet(page: Page, rpcUrl: string): Promise<UseWallet> {
  const node = createPublicClient({ transport: http(rpcUrl) });
  let current: { wallet: DemoWallet; state: InjectedWallet } | undefined;
  const nodeChainId = await node.getChainId();
  await page.exposeFunction('__lnswapWalletRequest', async (method: string, params: unknown[]) => {
    if (current === undefined) throw new Error('no wallet chosen');
    const { wallet, state } = current;
    state.calls.push({ method, params });
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [wallet.account.address.toLowerCase()];
      case 'eth_chainId':
        return `0x${state.chainId.toString(16)}`;
      case 'wallet_switchEthereumChain': {
        const wanted = Number((params[0] as { chainId: string }).chainId);
        if (!state.acceptSwitch || wanted !== nodeChainId) throw new Error('User rejected the request.');
        state.chainId = wanted;
        return null;
      }
      case 'eth_sendTransaction': {
        if (state.chainId !== nodeChainId) throw new Error('the wallet is on another chain');
        const { to, data, value } = params[0] as TransactionRequest;
        const hash = await wallet.sendTransaction({ to, data, value: BigInt(value) });
        state.sent.push(hash);
        return hash;
      }
      default:
        return node.request({ method: method as 'eth_blockNumber', params: params as never });
    }
  });
  // A string, not a function: tsx would wrap a function's body in helpers the page does not have. The exposed
  // function is looked up on each call, since it is bound to the page's window after this script runs.
  await page.addInitScript(`window.ethereum = {
    request: ({ method, params }) => window.__lnswapWalletRequest(method, params ?? []),
  };`);
  return (wallet, chainId) => {
    const state: InjectedWallet = { chainId, acceptSwitch: true, calls: [], sent: [] };
    current = { wallet, state };
    return state;
  };
}
