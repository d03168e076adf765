/**
 * A socket.io client written by hand over engine.io long-polling (EIO=4) with `fetch`: it sends
 * packets exactly as given, so a test can send what no well-behaved client library would.
 */

const SEPARATOR = '\x1e';
const WAIT_MS = 5_000;

/** What became of a request: its ack, or the server ended the session. */
export type RawOutcome = { ack: { success: boolean; message?: unknown } } | { closed: string };

export class RawPollingSession {
  private nextId = 1;
  private closedBy: string | undefined;
  /** Packets polled but not consumed yet. */
  private readonly inbox: string[] = [];

  private constructor(
    private readonly endpoint: string,
    private readonly namespace: string,
  ) {}

  /** Opens an engine.io session and joins `namespace`. */
  static async connect(baseUrl: string, namespace: string): Promise<RawPollingSession> {
    const response = await fetch(`${baseUrl}/socket.io/?EIO=4&transport=polling`, {
      signal: AbortSignal.timeout(WAIT_MS),
    });
    const body = await response.text();
    if (!body.startsWith('0')) throw new Error(`unexpected engine.io handshake: ${body}`);
    const { sid } = JSON.parse(body.slice(1)) as { sid: string };
    const session = new RawPollingSession(`${baseUrl}/socket.io/?EIO=4&transport=polling&sid=${sid}`, namespace);
    await session.post(`40${namespace},`);
    const joined = await session.receive(
      (packet) => packet.startsWith(`40${namespace},`) || packet.startsWith(`44${namespace},`),
    );
    if (joined === undefined || !joined.startsWith('40'))
      throw new Error(`could not join ${namespace}: ${joined ?? session.closedBy}`);
    return session;
  }

  /**
   * Emits `event` with the JSON text `payloadJson` (spliced in as is, so it may be anything) and an
   * ack id; resolves with the ack, or with how the session ended.
   */
  async emit(event: string, payloadJson: string): Promise<RawOutcome> {
    const id = this.nextId++;
    const prefix = `43${this.namespace},${id}`;
    await this.post(`42${this.namespace},${id}[${JSON.stringify(event)},${payloadJson}]`);
    const packet = await this.receive((candidate) => candidate.startsWith(prefix));
    if (packet === undefined) return { closed: this.closedBy ?? 'closed' };
    const [ack] = JSON.parse(packet.slice(prefix.length)) as [{ success: boolean; message?: unknown }];
    return { ack };
  }

  close(): void {
    if (this.closedBy !== undefined) return;
    this.closedBy = 'closed by the client';
    void this.post('1').catch(() => {});
  }

  private async post(packet: string): Promise<void> {
    if (this.closedBy !== undefined) return;
    const response = await fetch(this.endpoint, {
      method: 'POST',
      body: packet,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      signal: AbortSignal.timeout(WAIT_MS),
    });
    const body = await response.text();
    if (response.status !== 200) this.closedBy = `POST answered ${response.status} ${body}`;
  }

  /** Polls until a packet satisfies `wanted`; undefined once the session is over. */
  private async receive(wanted: (packet: string) => boolean): Promise<string | undefined> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const index = this.inbox.findIndex(wanted);
      if (index >= 0) return this.inbox.splice(index, 1)[0];
      if (this.closedBy !== undefined) return undefined;
      if (Date.now() > deadline) throw new Error('no answer from the server');
      const response = await fetch(this.endpoint, { signal: AbortSignal.timeout(WAIT_MS) });
      const body = await response.text();
      if (response.status !== 200) {
        this.closedBy = `GET answered ${response.status} ${body}`;
        continue;
      }
      for (const packet of body.split(SEPARATOR)) {
        if (packet === '1') this.closedBy = 'engine.io close packet';
        else if (packet === '2') await this.post('3');
        else if (packet.startsWith(`41${this.namespace}`)) this.closedBy = 'namespace disconnect packet';
        else this.inbox.push(packet);
      }
    }
  }
}

/** `[[[ ... ]]]` nested `depth` deep, as JSON text: built as a string, since JSON.stringify itself would overflow. */
export function nestedArrayJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}
