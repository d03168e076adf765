// The browser wallet through EIP-1193 (`window.ethereum`): the account, the chain, transactions and their receipts,
// and the wallet's own node for what the page checks on chain.
import { createPublicClient, custom } from 'viem';

const RECEIPT_POLL_MS = 1000;
/** The chain a market's network settles on when the service names none: Ethereum mainnet, Sepolia, Anvil. */
const USUAL_CHAIN_IDS = { mainnet: 1, testnet: 11155111, simnet: 31337 };

const hex = (number) => `0x${number.toString(16)}`;
const refusal = (token) => Object.assign(new Error(token), { token });

export class Wallet {
  #provider;
  account;

  constructor(provider) {
    this.#provider = provider;
  }

  /** The injected wallet, or a refusal saying there is none. */
  static injected() {
    if (window.ethereum === undefined) throw refusal('NoWallet');
    return new Wallet(window.ethereum);
  }

  async #request(method, params) {
    try {
      return await this.#provider.request(params === undefined ? { method } : { method, params });
    } catch (error) {
      throw Object.assign(refusal('WalletRefused'), { detail: error?.message });
    }
  }

  async connect() {
    const [account] = await this.#request('eth_requestAccounts');
    if (account === undefined) throw refusal('WalletRefused');
    this.account = account;
    return account;
  }

  /**
   * A viem PublicClient reading the chain through the wallet's provider: the node the person chose, not the service,
   * answers what the page verifies before it pays.
   */
  node() {
    return createPublicClient({ transport: custom(this.#provider) });
  }

  async chainId() {
    return Number(await this.#request('eth_chainId'));
  }

  /**
   * Asks the wallet to switch when it is on another chain than `wanted`; resolves once it is on `wanted`.
   * `onAsk` hears the ids before the wallet is asked, so the page can say why a prompt appears.
   */
  async ensureChain(wanted, onAsk) {
    const current = await this.chainId();
    if (current === wanted) return;
    onAsk(current, wanted);
    await this.#request('wallet_switchEthereumChain', [{ chainId: hex(wanted) }]);
    if ((await this.chainId()) !== wanted) throw refusal('WrongChain');
  }

  /** Sends a transaction `{ to, data, value }` (value in wei, a bigint) from the connected account. */
  async send({ to, data, value }) {
    return this.#request('eth_sendTransaction', [{ from: this.account, to, data, value: hex(value) }]);
  }

  /** Polls until `hash` is mined; `onProgress` hears its confirmations on each poll. Throws when it reverted. */
  async confirm(hash, onProgress, wanted = 1) {
    for (;;) {
      const receipt = await this.#request('eth_getTransactionReceipt', [hash]);
      if (receipt !== null && receipt !== undefined) {
        if (receipt.status !== '0x1') throw refusal('TransactionReverted');
        const tip = Number(await this.#request('eth_blockNumber'));
        const confirmations = tip - Number(receipt.blockNumber) + 1;
        onProgress(confirmations);
        if (confirmations >= wanted) return receipt;
      } else {
        onProgress(0);
      }
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }
}

/** The chain the order settles on: the one the service follows, or the usual one of the market's network. */
export function chainIdFor(network, followedChainId) {
  if (network === 'mainnet') return 1;
  return followedChainId ?? USUAL_CHAIN_IDS[network];
}
