import { io, type Socket } from 'socket.io-client';

export interface Ack {
  readonly success: boolean;
  readonly message?: unknown;
}

/** A real socket.io client of the service's namespace, connected. */
export async function connectBotSocket(url: string, namespace: '/user/v1' | '/provider/v1'): Promise<Socket> {
  const socket = io(`${url}${namespace}`, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', (error) => {
      socket.close();
      reject(new Error(`cannot connect to ${namespace}: ${error.message}`));
    });
  });
  return socket;
}

/** Emits and waits for the acknowledgement; a refusal becomes an error carrying its token. */
export async function call(socket: Socket, event: string, payload: unknown): Promise<unknown> {
  const ack = (await socket.emitWithAck(event, payload)) as Ack;
  if (!ack.success) throw new Error(`${event} refused: ${String(ack.message)}`);
  return ack.message;
}
