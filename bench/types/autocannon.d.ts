// autocannon ships no types; only what the bench's runner uses is declared.
declare module 'autocannon' {
  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: { method?: string; setupRequest?: (request: RequestParams) => RequestParams }[];
  }
  interface Histogram {
    p50: number;
    p99: number;
  }
  interface Result {
    duration: number;
    requests: { total: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
