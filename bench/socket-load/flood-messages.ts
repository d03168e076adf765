/** What the flooding process tells the process that started it, which answers `connected` with `start`. */
export type FloodMessage =
  | {
      readonly type: 'connected';
      readonly connections: number;
      /** The length of each message as sent (its WebSocket frame). */
      readonly messageBytes: number;
    }
  | {
      readonly type: 'flooded';
      readonly sent: number;
      /** Answers by outcome: `success` or the refusal's token. */
      readonly answers: Readonly<Record<string, number>>;
      /** Messages still without an answer when the flood stopped. */
      readonly unanswered: number;
      /** Connections the server closed. */
      readonly closed: number;
    };

export interface StartFlooding {
  readonly type: 'start';
}
