/**
 * A Bitcoin node for tests, over real HTTP: the Esplora REST API under `/api` (as mempool.space and
 * Blockstream's electrs serve it) and Bitcoin Core's JSON-RPC at `/` behind HTTP basic auth, both answering
 * from one BitcoinTestChain. Clients cannot tell it from the real thing for the calls lnswap makes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transaction } from 'bitcoinjs-lib';
import type { BitcoinTestChain, Located } from './chain.js';
import { coreBlock, coreTx, esploraBlock, esploraStatus, esploraTx } from './shapes.js';

export interface TestBitcoinNode {
  readonly chain: BitcoinTestChain;
  /** Esplora's base URL, e.g. http://127.0.0.1:PORT/api. */
  readonly esploraUrl: string;
  /** Bitcoin Core's RPC URL, credentials in it. */
  readonly rpcUrl: string;
  readonly rpcUser: string;
  readonly rpcPassword: string;
  /** The fee rate both APIs estimate, sat/vB. */
  feeRate: number;
  /** Every request, `METHOD path` or `rpc METHOD`, for tests that check what a client asked. */
  readonly requests: string[];
  /**
   * Ids a dishonest node adds to its mempool listings (`/mempool/txids`, `getrawmempool`) without holding the
   * transactions: asked for, they are not found.
   */
  listedButMissing: string[];
  close(): Promise<void>;
}

const ESPLORA_PAGE = 25;
const ADDRESS_MEMPOOL_LIMIT = 50;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startTestBitcoinNode(
  chain: BitcoinTestChain,
  options: { feeRate?: number } = {},
): Promise<TestBitcoinNode> {
  const rpcUser = 'lnswap';
  const rpcPassword = 'node-password';
  const requests: string[] = [];
  const node = { feeRate: options.feeRate ?? 12, listedButMissing: [] as string[] };

  /** The mempool's ids, oldest first, as both APIs list them (neither promises an order). */
  function mempoolTxIds(): string[] {
    return [...chain.mempool.map((tx) => tx.getId()), ...node.listedButMissing];
  }

  function located(txId: string): Located {
    const found = chain.find(txId);
    if (found === undefined) throw new HttpError(404, 'Transaction not found');
    return found;
  }

  function blockByHash(hash: string) {
    const block = chain.blockByHash(hash);
    if (block === undefined) throw new HttpError(404, 'Block not found');
    return block;
  }

  function broadcast(hex: string): string {
    try {
      Transaction.fromHex(hex);
    } catch {
      throw new RpcError(-22, 'TX decode failed. Make sure the tx has at least one input.');
    }
    try {
      return chain.submit(hex).getId();
    } catch (error) {
      throw new RpcError(-26, (error as Error).message);
    }
  }

  function esplora(method: string, path: string, body: string): unknown {
    const parts = path.split('/').filter((part) => part !== '');
    const [head, id, sub, extra] = parts;
    if (method === 'POST' && head === 'tx' && parts.length === 1) {
      try {
        return broadcast(body.trim());
      } catch (error) {
        const { code, message } = error as RpcError;
        throw new HttpError(400, `sendrawtransaction RPC error: ${JSON.stringify({ code, message })}`);
      }
    }
    if (method !== 'GET') throw new HttpError(404, 'Not found');
    if (head === 'blocks' && id === 'tip' && sub === 'height') return String(chain.tipHeight);
    if (head === 'blocks' && id === 'tip' && sub === 'hash') return chain.tip?.hash ?? chain.genesisHash;
    if (head === 'block-height' && id !== undefined) {
      const height = Number(id);
      const hash = height === 0 ? chain.genesisHash : chain.blockAtHeight(height)?.hash;
      if (hash === undefined) throw new HttpError(404, 'Block not found');
      return hash;
    }
    if (head === 'block' && id !== undefined) {
      const block = blockByHash(id);
      if (sub === undefined) return esploraBlock(chain, block);
      if (sub === 'status') return { in_best_chain: true, height: block.height };
      if (sub === 'txids') return block.txs.map((tx) => tx.getId());
      if (sub === 'raw') return Buffer.from(block.block.toBuffer());
      if (sub === 'txs') {
        const start = Number(extra ?? 0);
        if (!Number.isInteger(start) || start % ESPLORA_PAGE !== 0)
          throw new HttpError(400, 'start index must be a multiple of 25');
        return block.txs
          .slice(start, start + ESPLORA_PAGE)
          .map((tx, offset) => esploraTx(chain, { tx, block, index: start + offset }));
      }
    }
    if (head === 'mempool' && id === 'txids') return mempoolTxIds();
    if (head === 'mempool' && id === undefined) {
      return {
        count: chain.mempool.length,
        vsize: chain.mempool.reduce((sum, tx) => sum + tx.virtualSize(), 0),
        total_fee: chain.mempool.reduce((sum, tx) => sum + Number(chain.fee(tx) ?? 0n), 0),
        fee_histogram: [],
      };
    }
    if (head === 'tx' && id !== undefined) {
      const found = located(id);
      if (sub === undefined) return esploraTx(chain, found);
      if (sub === 'hex') return found.tx.toHex();
      if (sub === 'status') return esploraStatus(found.block);
      if (sub === 'outspends') {
        return found.tx.outs.map((_, index) => {
          const spend = chain.outspend(id, index);
          if (spend === undefined) return { spent: false };
          return {
            spent: true,
            txid: spend.spender.tx.getId(),
            vin: spend.inputIndex,
            status: esploraStatus(spend.spender.block),
          };
        });
      }
    }
    if (head === 'address' && id !== undefined && sub === 'txs') {
      const all = chain.addressTxs(id);
      const pending = all.filter((entry) => entry.block === undefined);
      const confirmed = all.filter((entry) => entry.block !== undefined);
      if (extra === 'chain') {
        const lastSeen = parts[4];
        const after = lastSeen === undefined ? 0 : confirmed.findIndex((entry) => entry.tx.getId() === lastSeen) + 1;
        return confirmed.slice(after, after + ESPLORA_PAGE).map((entry) => esploraTx(chain, entry));
      }
      if (extra === 'mempool') return pending.slice(0, ADDRESS_MEMPOOL_LIMIT).map((entry) => esploraTx(chain, entry));
      return [...pending.slice(0, ADDRESS_MEMPOOL_LIMIT), ...confirmed.slice(0, ESPLORA_PAGE)].map((entry) =>
        esploraTx(chain, entry),
      );
    }
    if (head === 'address' && id !== undefined && sub === 'utxo' && extra === undefined) {
      // Confirmed and mempool outputs alike, less those a mempool transaction spends, as electrs lists them.
      return [...chain.all()].flatMap(({ tx, block }) =>
        tx.outs.flatMap((output, vout) =>
          chain.addressOf(output.script) === id && chain.outspend(tx.getId(), vout) === undefined
            ? [{ txid: tx.getId(), vout, value: Number(output.value), status: esploraStatus(block) }]
            : [],
        ),
      );
    }
    if (head === 'fee-estimates') {
      return Object.fromEntries(
        [1, 2, 3, 4, 5, 6, 10, 20, 144, 504, 1008].map((target) => [String(target), node.feeRate]),
      );
    }
    throw new HttpError(404, 'Not found');
  }

  function rpc(method: string, params: unknown[]): unknown {
    switch (method) {
      case 'getblockcount':
        return chain.tipHeight;
      case 'getbestblockhash':
        return chain.tip?.hash ?? chain.genesisHash;
      case 'getblockhash': {
        const height = Number(params[0]);
        const hash = height === 0 ? chain.genesisHash : chain.blockAtHeight(height)?.hash;
        if (hash === undefined) throw new RpcError(-8, 'Block height out of range');
        return hash;
      }
      case 'getblock': {
        const block = chain.blockByHash(String(params[0]));
        if (block === undefined) throw new RpcError(-5, 'Block not found');
        const verbosity = params[1] === undefined ? 1 : Number(params[1]);
        return verbosity === 0 ? block.block.toHex() : coreBlock(chain, block, verbosity);
      }
      case 'getrawmempool':
        // Only the plain form (verbose false, the default): a list of ids.
        if (params[0] === true) throw new RpcError(-8, 'verbose listing not served by the test node');
        return mempoolTxIds();
      case 'getmempoolinfo':
        return {
          loaded: true,
          size: chain.mempool.length,
          bytes: chain.mempool.reduce((sum, tx) => sum + tx.virtualSize(), 0),
          fullrbf: true,
        };
      case 'getrawtransaction': {
        const found = chain.find(String(params[0]));
        if (found === undefined) {
          throw new RpcError(
            -5,
            'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
          );
        }
        return params[1] === true || Number(params[1]) > 0 ? coreTx(chain, found) : found.tx.toHex();
      }
      case 'estimatesmartfee':
        return { feerate: (node.feeRate * 1000) / 1e8, blocks: Number(params[0] ?? 2) };
      case 'sendrawtransaction':
        return broadcast(String(params[0]));
      case 'getblockchaininfo':
        return {
          chain: { mainnet: 'main', testnet: 'test', simnet: 'regtest' }[chain.network],
          blocks: chain.tipHeight,
          headers: chain.tipHeight,
          bestblockhash: chain.tip?.hash ?? chain.genesisHash,
          initialblockdownload: false,
          pruned: false,
        };
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  function authorized(request: IncomingMessage): boolean {
    const expected = `Basic ${Buffer.from(`${rpcUser}:${rpcPassword}`).toString('base64')}`;
    return request.headers.authorization === expected;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://node').pathname;
    const body = await bodyOf(request);
    if (path === '/' || path === '') {
      if (!authorized(request)) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"' }).end();
        return;
      }
      const call = JSON.parse(body) as { id?: unknown; method: string; params?: unknown[] };
      requests.push(`rpc ${call.method}`);
      try {
        const result = rpc(call.method, call.params ?? []);
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ result, error: null, id: call.id ?? null }));
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        // Bitcoin Core answers JSON-RPC 1.0 errors with HTTP 500 (404 for an unknown method) and the error in the body.
        response.writeHead(error.code === -32601 ? 404 : 500, { 'Content-Type': 'application/json' });
        response.end(
          JSON.stringify({ result: null, error: { code: error.code, message: error.message }, id: call.id ?? null }),
        );
      }
      return;
    }
    if (!path.startsWith('/api/')) throw new HttpError(404, 'Not found');
    requests.push(`${request.method} ${path}`);
    const answer = esplora(request.method ?? 'GET', path.slice('/api'.length), body);
    if (Buffer.isBuffer(answer)) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(answer);
    } else if (typeof answer === 'string') {
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer);
    } else {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      response
        .writeHead(status, { 'Content-Type': 'text/plain' })
        .end(error instanceof Error ? error.message : 'error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    chain,
    esploraUrl: `http://127.0.0.1:${port}/api`,
    rpcUrl: `http://${rpcUser}:${rpcPassword}@127.0.0.1:${port}/`,
    rpcUser,
    rpcPassword,
    get feeRate() {
      return node.feeRate;
    },
    set feeRate(rate: number) {
      node.feeRate = rate;
    },
    requests,
    get listedButMissing() {
      return node.listedButMissing;
    },
    set listedButMissing(ids: string[]) {
      node.listedButMissing = ids;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
