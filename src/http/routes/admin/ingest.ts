import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminTokens } from '../../../access/admin-tokens.ts';
import type { IngestBatch, IngestSink, RecordFault } from '../../../domain/ingest.ts';
import { ApiError, badRequest, unauthorized } from '../../../projection/errors.ts';
import { parseLines } from './ndjson.ts';

export interface IngestRouteDeps {
  feed: IngestSink;
  tokens: AdminTokens;
  /** Largest body read, in bytes; a larger one is answered 413 before it is read. */
  bodyLimit: number;
  /** Batches in flight (read, checked or waiting for the ledger) at once; past it, 503 before reading. */
  maxInFlight: number;
}

export const INGEST_PATH = '/admin/v1/ingest';

/** Most records one batch may carry: a larger batch is split by the sender. */
export const MAX_RECORDS = 10_000;

const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'];
const BATCH_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T/;
/** How long a sender told the ledger is busy waits before it sends again. */
const RETRY_AFTER_SECONDS = 1;

const busy = (why: string) =>
  new ApiError(
    503,
    { message: `${why}: send the batch again after Retry-After` },
    {
      'retry-after': String(RETRY_AFTER_SECONDS),
    },
  );

/**
 * POST /admin/v1/ingest (docs/feeds.md): a batch of records from a team's own feed, as JSON
 * (`{batch_id, at?, records}`) or NDJSON (a record a line, the batch id in `Idempotency-Key`, the
 * time in `X-Batch-At`). Opened by an admin token (`Authorization: Bearer`), never by an API key;
 * answered 200 once the batch is committed (or was before, under the same id), 400 naming every
 * bad record, 413 past the body limit, 503 with Retry-After when the ledger has enough waiting.
 */
export async function ingestRoutes(app: FastifyInstance, deps: IngestRouteDeps): Promise<void> {
  let inFlight = 0;
  app.addContentTypeParser(NDJSON_TYPES, { parseAs: 'buffer', bodyLimit: deps.bodyLimit }, (_request, body, done) =>
    done(null, { ndjson: body as Buffer }),
  );

  /** Refuses before the body is read: who may not send, and what would not be taken anyway. */
  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await deps.tokens.admits(request.headers.authorization))) throw unauthorized();
    const length = Number(request.headers['content-length']);
    if (length > deps.bodyLimit) {
      throw new ApiError(413, {
        message: `the batch is ${length} bytes, more than the ${deps.bodyLimit} taken: split it into smaller batches`,
      });
    }
    if (inFlight >= deps.maxInFlight) throw busy(`${inFlight} batches are being taken already`);
    inFlight++;
    reply.raw.once('close', () => inFlight--);
  };

  app.post(
    INGEST_PATH,
    {
      // Not an API route: access control's keys and metering are not asked, the admin token is.
      config: { public: true },
      schema: { hide: true },
      bodyLimit: deps.bodyLimit,
      onRequest: admit,
    },
    async (request, reply) => {
      const batch = batchOf(request);
      const outcome = await deps.feed.accept(batch);
      switch (outcome.kind) {
        case 'committed':
          return reply.code(200).send({
            batch_id: batch.batchId,
            applied: outcome.applied,
            records: batch.records.length,
            head_id: outcome.headId,
          });
        case 'invalid':
          throw refused(`${new Set(outcome.faults.map((f) => f.index)).size} records are not valid`, outcome.faults);
        case 'refused':
          throw badRequest(`the batch was refused: ${outcome.message}`);
        case 'busy':
          throw busy('the ledger has as many batches waiting as it takes');
      }
    },
  );
}

function refused(text: string, faults: RecordFault[]): ApiError {
  return new ApiError(400, { error: text, message: text, faults });
}

/** The batch a request carries, or a 400 that says what is missing. */
function batchOf(request: FastifyRequest): IngestBatch {
  const body = request.body as unknown;
  const header = request.headers['idempotency-key'];
  const headerId = typeof header === 'string' ? header : undefined;
  let records: readonly unknown[];
  let bodyId: unknown;
  let at: unknown = request.headers['x-batch-at'];
  if (typeof body === 'object' && body !== null && 'ndjson' in body) {
    const lines = parseLines((body as { ndjson: Buffer }).ndjson);
    if ('faults' in lines) throw refused(`${lines.faults.length} lines are not JSON`, lines.faults);
    records = lines.records;
  } else if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const unknown = Object.keys(b).filter((k) => k !== 'batch_id' && k !== 'at' && k !== 'records');
    if (unknown.length > 0) throw badRequest(`a batch has batch_id, at and records; not ${unknown.join(', ')}`);
    if (!Array.isArray(b.records)) throw badRequest('records must be an array of records');
    records = b.records;
    bodyId = b.batch_id;
    if (b.at !== undefined) at = b.at;
  } else {
    throw badRequest(
      `the body is a JSON object {batch_id, at?, records} (Content-Type application/json) or one record a line (${NDJSON_TYPES[0]})`,
    );
  }
  if (bodyId !== undefined && typeof bodyId !== 'string') throw badRequest('batch_id must be a string');
  if (bodyId !== undefined && headerId !== undefined && bodyId !== headerId) {
    throw badRequest('batch_id and the Idempotency-Key header differ: send one, or the same in both');
  }
  const batchId = (bodyId as string | undefined) ?? headerId;
  if (batchId === undefined) {
    throw badRequest('a batch needs an id, so that sending it again applies it once: batch_id or Idempotency-Key');
  }
  if (!BATCH_ID.test(batchId)) throw badRequest('a batch id is 1 to 128 letters, digits, _ . : or -');
  if (records.length === 0) throw badRequest('a batch carries at least one record');
  if (records.length > MAX_RECORDS) throw badRequest(`a batch carries at most ${MAX_RECORDS} records`);
  if (at !== undefined && (typeof at !== 'string' || !TIME.test(at) || Number.isNaN(Date.parse(at)))) {
    throw badRequest('at (or X-Batch-At) must be an ISO 8601 time, 2026-12-06T12:00:00Z');
  }
  return { batchId, at: at as string | undefined, records };
}
