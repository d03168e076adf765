/**
 * How a chain node failed a call. The watcher retries every one of them on its next poll; `/readyz` and the
 * log tell them apart because they call for different fixes: `timeout`, `unreachable` and `refused` (an HTTP
 * error status or a JSON-RPC error) are a node that is down or overloaded; `tooLarge`,
 * `badAnswer` and `unstable` (block hashes that change between two reads of the same height) are a node that
 * answers something no honest node does.
 */
export type NodeFault = 'timeout' | 'unreachable' | 'refused' | 'tooLarge' | 'badAnswer' | 'unstable';

const MISBEHAVING: ReadonlySet<NodeFault> = new Set(['tooLarge', 'badAnswer', 'unstable']);

/** Whether the fault is a node answering what no honest node answers, rather than one that is down. */
export function isMisbehaviour(fault: NodeFault): boolean {
  return MISBEHAVING.has(fault);
}

/**
 * Characters of a failure's detail kept in its message. A detail may quote what the node sent (a library's
 * message repeats the value it could not read), and a node may send megabytes: the log and the one line
 * `lnswap serve` prints at start take this much of it.
 */
export const DETAIL_CHARS = 200;

/**
 * A call to a chain node that failed. `node` is the node's scheme, host and port (domain/node-url.ts) and the
 * message names the call, never the full URL: both go to the log. The detail is cut to `DETAIL_CHARS`, on one line.
 */
export class NodeCallFailed extends Error {
  constructor(
    readonly fault: NodeFault,
    readonly node: string,
    what: string,
    detail: string,
  ) {
    super(`${what} at ${node}: ${boundedDetail(detail)}`);
    this.name = 'NodeCallFailed';
  }
}

function boundedDetail(detail: string): string {
  const line = detail.slice(0, DETAIL_CHARS + 1).replace(/\s+/g, ' ');
  return line.length > DETAIL_CHARS ? `${line.slice(0, DETAIL_CHARS)}…` : line;
}

/**
 * The fault of a failed node call, also when a library wrapped it (viem wraps a transport's errors); undefined
 * for any other error (a bug or the store failing).
 */
export function nodeFaultOf(error: unknown): NodeFault | undefined {
  return nodeCallFailureIn(error)?.fault;
}

/** The NodeCallFailed an error is or wraps, if any. */
export function nodeCallFailureIn(error: unknown): NodeCallFailed | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth += 1) {
    if (cause instanceof NodeCallFailed) return cause;
  }
  return undefined;
}
