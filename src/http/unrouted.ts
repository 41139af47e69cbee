import type { FastifyInstance, FastifyRequest } from 'fastify';
import { quote } from './errors.ts';

/** The methods any route answers: every path is GET (and HEAD), the stream token POST. */
const METHODS = ['GET', 'HEAD', 'POST'] as const;

export interface Unrouted {
  status: 404 | 405;
  text: string;
  /** The `Allow` header of a 405. */
  allow?: string;
}

/**
 * What a request no route takes is told: 405 with `Allow` when its path is routed for other methods
 * (a POST to a GET path is no misspelled path), else 404.
 */
export function unrouted(app: FastifyInstance, request: FastifyRequest): Unrouted {
  const path = request.url.split('?')[0]!;
  const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
  if (allowed.length === 0) return { status: 404, text: `path not found: ${request.method} ${quote(path)}` };
  const allow = allowed.join(', ');
  return { status: 405, text: `method ${request.method} is not allowed on ${quote(path)}; it answers ${allow}`, allow };
}
