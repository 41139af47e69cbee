import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { quote } from '../projection/errors.ts';

/** The methods any route answers: every path is GET (and HEAD), the stream token and sign-in POST, sign-out DELETE. */
const METHODS = ['GET', 'HEAD', 'POST', 'DELETE'] as const;

/**
 * Answers a request no route takes: 405 with `Allow` when its path is routed for other methods (a
 * POST to a GET path is no misspelled path), else 404; `body` shapes the text as the interface's
 * errors are shaped (V2 `message`, V1 `error` too).
 */
export function answerUnrouted(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  body: (text: string) => Record<string, string>,
): FastifyReply {
  const path = request.url.split('?')[0]!;
  const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
  if (allowed.length === 0) return reply.code(404).send(body(`path not found: ${request.method} ${quote(path)}`));
  const allow = allowed.join(', ');
  return reply
    .code(405)
    .header('allow', allow)
    .send(body(`method ${request.method} is not allowed on ${quote(path)}; it answers ${allow}`));
}
