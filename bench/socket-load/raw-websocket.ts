import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const HEADER_END = '\r\n\r\n';
const OPCODE_TEXT = 0x1;
const OPCODE_CLOSE = 0x8;

/**
 * A client-to-server WebSocket text frame, masked with the zero key (the protocol requires a mask, not a secret
 * one): built once, it is written again and again without the per-byte masking a client library does, so the
 * flood costs its sender almost nothing but the kernel's copy.
 */
export function zeroMaskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + 4);
  header[0] = 0x80 | OPCODE_TEXT;
  if (lengthBytes === 0) header[1] = 0x80 | length;
  else if (lengthBytes === 2) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/**
 * An engine.io 4 connection over WebSocket written by hand: the upgrade, the server's text frames (small, never
 * fragmented) handed over as engine.io packets, and the heartbeat answered. Frames are sent as given.
 */
export class RawEngineSocket {
  private received: Buffer = Buffer.alloc(0);
  private upgraded = false;
  private readonly listeners: ((packet: string) => void)[] = [];
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => socket.destroy());
  }

  /** Opens a connection to the service at `url` (http://host:port) from `localAddress`. */
  static open(url: string, localAddress: string): Promise<RawEngineSocket> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const engine = new RawEngineSocket(socket);
    socket.write(
      `GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13${HEADER_END}`,
    );
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      engine.onPacket((packet) => {
        if (packet.startsWith('0')) resolve(engine);
      });
    });
  }

  onPacket(listener: (packet: string) => void): void {
    this.listeners.push(listener);
  }

  /** Joins a socket.io namespace; resolves when the server admits it. */
  join(namespace: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.onPacket((packet) => {
        if (packet.startsWith(`40${namespace},`)) resolve();
        else if (packet.startsWith(`44${namespace},`)) reject(new Error(`${namespace} refused: ${packet}`));
      });
      this.send(zeroMaskedTextFrame(`40${namespace},`));
    });
  }

  send(frame: Buffer): void {
    if (!this.closed) this.socket.write(frame);
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    if (!this.upgraded) {
      const end = this.received.indexOf(HEADER_END);
      if (end === -1) return;
      if (!this.received.subarray(0, 12).toString().includes(' 101')) {
        this.socket.destroy();
        return;
      }
      this.upgraded = true;
      this.received = this.received.subarray(end + HEADER_END.length);
    }
    for (;;) {
      if (this.received.length < 2) return;
      const opcode = this.received[0]! & 0x0f;
      let length = this.received[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.received.length < 4) return;
        length = this.received.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.received.length < 10) return;
        length = Number(this.received.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.received.length < offset + length) return;
      const payload = this.received.subarray(offset, offset + length);
      this.received = this.received.subarray(offset + length);
      if (opcode === OPCODE_CLOSE) return this.close();
      if (opcode !== OPCODE_TEXT) continue;
      const packet = payload.toString();
      // engine.io's heartbeat: the server pings, the client pongs.
      if (packet === '2') this.send(zeroMaskedTextFrame('3'));
      for (const listener of this.listeners) listener(packet);
    }
  }
}
