import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * Runs autocannon in its own process (so it never shares an event loop with the bench) and prints its numbers as one
 * JSON line. Arguments: base URL, seconds, connections, then a JSON file holding the paths.
 */
const [baseUrl, seconds, connections, pathsFile] = process.argv.slice(2);
const paths = JSON.parse(readFileSync(pathsFile!, 'utf8')) as string[];
let position = Math.floor(Math.random() * paths.length);

const result = await autocannon({
  url: baseUrl!,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      method: 'GET',
      setupRequest: (request) => {
        position = (position + 1) % paths.length;
        return { ...request, path: paths[position]! };
      },
    },
  ],
});

process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  })}\n`,
);
