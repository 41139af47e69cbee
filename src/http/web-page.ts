import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { quote } from '../projection/errors.ts';

/**
 * What the page may load and connect to: its own origin only (the page makes no request to
 * another host, and a script injected into it could not send a session's data elsewhere).
 * Inline styles are allowed: components set them.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A file name Vite writes: no directory part, nothing to climb out of the folder with. */
const FILE_NAME = /^[\w-]+(\.[\w-]+)*$/;

const MISSING = 'The odds screen is not built: run `npm run build:web` (npm ci does it), then reload.\n';

/**
 * Serves the built odds screen (web/dist) at `/`: index.html is revalidated on every load
 * (`no-cache`), since it names the hashed files of the current build; the hashed files under
 * /assets/ never change and are cached for good. Other files at the top of the build (a favicon)
 * are revalidated too. Without a build, `/` answers 503 with the command that makes one. These
 * routes are public: the page signs in through /session and never holds a key.
 */
export async function webPageRoutes(app: FastifyInstance, dir: string): Promise<void> {
  // `serve: false`: fastify-static only sends files (reply.sendFile); the routes are ours, public.
  await app.register(fastifyStatic, { root: dir, serve: false, cacheControl: false });
  const page = { schema: { hide: true }, config: { public: true } };

  app.get('/', page, (_request, reply) => {
    if (!existsSync(join(dir, 'index.html'))) {
      return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(MISSING);
    }
    return send(reply, 'index.html', 'no-cache');
  });

  app.get<{ Params: { file: string } }>('/assets/:file', page, (request, reply) => {
    const file = `assets/${request.params.file}`;
    // Answered here: the unrouted handler would call a GET of a routed pattern a wrong method.
    if (!FILE_NAME.test(request.params.file) || !existsSync(join(dir, file))) {
      return reply.code(404).send({ message: `path not found: GET ${quote(`/${file}`)}` });
    }
    return send(reply, file, 'public, max-age=31536000, immutable');
  });

  for (const file of topFiles(dir)) app.get(`/${file}`, page, (_request, reply) => send(reply, file, 'no-cache'));
}

function send(reply: FastifyReply, file: string, cacheControl: string): FastifyReply {
  return reply
    .header('cache-control', cacheControl)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .sendFile(file);
}

/** The build's top-level files other than index.html (served at `/`), as the start finds them. */
function topFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== 'index.html' && FILE_NAME.test(e.name))
    .map((e) => e.name);
}
