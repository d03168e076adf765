// The ceiling: plain node:http answering every request with one fixed JSON body of a given size.
// Plain JavaScript, loaded by nothing but node, so the ceiling carries no cost the lnswap server does not.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, bytes: { type: 'string' } },
});
const bytes = Number(values.bytes);
const port = Number(values.port);
if (!Number.isInteger(bytes) || bytes < 2 || !Number.isInteger(port)) {
  process.stderr.write('usage: bare-server.mjs --port N --bytes N (N >= 2)\n');
  process.exit(2);
}

const body = Buffer.from(`"${'x'.repeat(bytes - 2)}"`);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

createServer((request, response) => {
  response.writeHead(200, headers);
  response.end(body);
}).listen(port, values.host);

process.on('SIGTERM', () => process.exit(0));
