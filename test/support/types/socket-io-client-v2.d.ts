/** The 2.x client has no bundled types; this is the part the tests use. */
declare module 'socket.io-client-v2' {
  interface LegacyClientSocket {
    readonly id: string;
    readonly connected: boolean;
    on(event: string, listener: (...args: never[]) => void): LegacyClientSocket;
    off(event: string, listener?: (...args: never[]) => void): LegacyClientSocket;
    emit(event: string, ...args: unknown[]): LegacyClientSocket;
    close(): LegacyClientSocket;
  }
  function connect(uri: string, options?: Record<string, unknown>): LegacyClientSocket;
  export default connect;
}
