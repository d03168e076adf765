/**
 * The order tracker page (docs/tracker.md): one HTML document for `/`, `/orders/:id` and `/markets`, whose
 * scripts pick the view from the path, and its assets from `web/` plus the two browser libraries it uses,
 * all served from memory with an ETag so a browser revalidates for a 304 instead of fetching again.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyNotFound } from './errors.js';
import { routeMethods } from './methods.js';
import { trackerAssetSchema, trackerPageSchema } from './schemas.js';

export const TRACKER_PAGE_PATHS: readonly string[] = ['/', '/orders/:id', '/markets', '/pay'];
/** The pay page (docs/pay-page.md) is its own document; every other path is the tracker's. */
const DOCUMENT_OF_PATH: Readonly<Record<string, string>> = { '/pay': 'pay.html' };
const TRACKER_DOCUMENT = 'index.html';
export const TRACKER_ASSET_PATH = '/assets/:file';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Everything from this service; socket.io's WebSocket is same-origin, which 'self' covers. */
const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

function asset(path: string): Asset {
  const body = readFileSync(path);
  const contentType = CONTENT_TYPES[extname(path)];
  if (contentType === undefined) throw new Error(`no content type for the tracker asset ${path}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, contentType, etag };
}

/** web/ beside src/ (run by tsx) or beside dist/ (built): the first ancestor holding web/index.html. */
function webDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, 'web');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(directory);
    if (parent === directory) throw new Error('cannot find the web/ folder of the tracker page');
    directory = parent;
  }
}

/** The browser builds of the libraries the page imports, from the installed packages, under fixed names. */
function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const socketIoClient = dirname(require.resolve('socket.io-client/package.json'));
  const qrcodeGenerator = dirname(require.resolve('qrcode-generator'));
  return {
    'socket.io.esm.min.js': join(socketIoClient, 'dist', 'socket.io.esm.min.js'),
    'qrcode.mjs': join(qrcodeGenerator, 'qrcode.mjs'),
  };
}

/**
 * The pages' documents by file name, and their assets: the files directly in web/ (web/pay/ holds the pay page's
 * sources, served bundled as pay.js) and the vendored libraries.
 */
export function loadTrackerAssets(): { pages: ReadonlyMap<string, Asset>; assets: ReadonlyMap<string, Asset> } {
  const web = webDirectory();
  const pages = new Map<string, Asset>();
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(web, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    (entry.name.endsWith('.html') ? pages : assets).set(entry.name, asset(join(web, entry.name)));
  }
  for (const [name, path] of Object.entries(vendorFiles())) assets.set(name, asset(path));
  return { pages, assets };
}

function send(request: FastifyRequest, reply: FastifyReply, { body, contentType, etag }: Asset): FastifyReply {
  // no-cache is "keep it, but ask first": a new release is seen at once, an unchanged file costs a 304.
  reply.header('cache-control', 'no-cache').header('etag', etag);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.type(contentType).send(body);
}

export const trackerPageRoutes: FastifyPluginAsyncJsonSchemaToTs = async (app) => {
  const method = routeMethods(app);
  const { pages, assets } = loadTrackerAssets();

  for (const url of TRACKER_PAGE_PATHS) {
    const page = pages.get(DOCUMENT_OF_PATH[url] ?? TRACKER_DOCUMENT);
    if (page === undefined) throw new Error(`web/ holds no document for ${url}`);
    app.route({
      method,
      url,
      schema: trackerPageSchema(url),
      handler: async (request, reply) => send(request, reply.header('content-security-policy', PAGE_CSP), page),
    });
  }

  app.route({
    method,
    url: TRACKER_ASSET_PATH,
    schema: trackerAssetSchema,
    handler: async (request, reply) => {
      const found = assets.get(request.params.file);
      return found === undefined ? replyNotFound(reply) : send(request, reply, found);
    },
  });
};
