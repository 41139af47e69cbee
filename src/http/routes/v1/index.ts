import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerUnrouted } from '../../unrouted.ts';
import type { RouteDeps, V1Deps } from '../../route-kit.ts';
import { V1EventCache, V1FilterCache } from '../../../projection/v1-event.ts';
import { v1DeltaRoutes } from './delta.ts';
import { v1EventRoutes } from './events.ts';
import { v1LineRoutes } from './lines.ts';
import { v1ReferenceRoutes } from './reference.ts';
import { v1ScheduleRoutes } from './schedule.ts';

/**
 * Gives a V1 error body the `error` member: a V1 client recognises an error, "not found" included,
 * only by that key. Bodies that have one keep it; `message` stays for clients that read it.
 */
function withErrorKey(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: null, p: unknown) => void,
) {
  if (reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return done(null, payload);
  }
  if (typeof body.error === 'string' || typeof body.message !== 'string') return done(null, payload);
  return done(null, JSON.stringify({ error: body.message, ...body }));
}

/**
 * The line-based interface under /api/v1 (register with that prefix): derived from the same board
 * and change log as V2, never from a copy of the data. Its routes, its unknown paths and its refusals
 * answer errors with `error`.
 */
export async function v1Routes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  fastify.addHook('onSend', withErrorKey);
  fastify.setNotFoundHandler((request, reply) =>
    answerUnrouted(fastify, request, reply, (text) => ({ error: text, message: text })),
  );
  const v1: V1Deps = {
    ...deps,
    v1Cache: new V1EventCache(deps.budget, deps.catalog),
    v1Filters: new V1FilterCache(deps.budget),
  };
  await fastify.register(v1ReferenceRoutes, v1);
  await fastify.register(v1ScheduleRoutes, v1);
  await fastify.register(v1EventRoutes, v1);
  await fastify.register(v1LineRoutes, v1);
  await fastify.register(v1DeltaRoutes, v1);
}
