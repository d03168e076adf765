/**
 * Sending the provider's claims through the service's node, for a provider without a node that
 * broadcasts (an Esplora it may only read, say).
 *
 * API: `await connectServiceBroadcaster({ serviceUrl, onchainTicker, ackTimeoutMs })` → `{ broadcast(hex), close() }`;
 * `broadcast` resolves with the transaction id the service answers, and rejects with `BroadcastRefused` when
 * the network refused it (`TransactionRejected`) or it is no transaction (`InvalidSignedTxHex`), as the
 * node backends do, so `settleBitcoinOrder` treats both paths alike.
 *
 * `broadcastTransaction` is a `/user/v1` request (anyone may broadcast; no credentials), so this is a
 * connection of its own, beside the provider's authenticated one.
 */
import { io } from 'socket.io-client';
import { BroadcastRefused } from '../../chains/chain-backend.js';
import { readAck, readBroadcastAnswer } from '../../client/acks.js';

export interface ServiceBroadcasterOptions {
  /** The service's base URL; `/user/v1` is appended. */
  serviceUrl: string;
  /** The market's on-chain ticker the service names the network by (`BTC`, `TBTC`, `SBTC`). */
  onchainTicker: string;
  ackTimeoutMs: number;
}

export interface ServiceBroadcaster {
  broadcast(signedTxHex: string): Promise<string>;
  close(): void;
}

export async function connectServiceBroadcaster(options: ServiceBroadcasterOptions): Promise<ServiceBroadcaster> {
  const socket = io(`${options.serviceUrl}/user/v1`, { transports: ['websocket'], forceNew: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
  } catch (error) {
    socket.close();
    throw error;
  }
  return {
    async broadcast(signedTxHex) {
      // Not buffered while disconnected: the settle step sends the claim again on its next round.
      if (!socket.connected) throw new Error('not connected to the service');
      const ack = readAck(
        await socket
          .timeout(options.ackTimeoutMs)
          .emitWithAck('broadcastTransaction', { onchainTicker: options.onchainTicker, signedTxHex }),
        'broadcastTransaction',
      );
      if (ack.success) return readBroadcastAnswer(ack.message).txId;
      const token = ack.message;
      if (token === 'TransactionRejected') throw new BroadcastRefused('TransactionRejected', token);
      if (token === 'InvalidSignedTxHex') throw new BroadcastRefused('InvalidTransaction', token);
      throw new Error(`broadcastTransaction refused: ${token}`);
    },
    close: () => socket.close(),
  };
}
