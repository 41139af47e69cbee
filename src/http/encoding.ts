import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { constants, createGzip, gzipSync } from 'node:zlib';

/**
 * Compressed and conditional answers (docs/spec-gaps.md, Compression and conditional requests).
 * Kept answers (the events snapshots, the box scores and season stats the fast lane serves) are
 * compressed once, when they are kept, and carry a weak ETag made from what they show; any other
 * answer of a 2xx status is compressed per request, at a fast level, from GZIP_MIN_BYTES on.
 */

/** Below this an answer goes out plain: the gzip header and the CPU buy nothing. */
export const GZIP_MIN_BYTES = 1024;
/** Kept answers: compressed once per change, so the smaller output is worth the slower level. */
const KEPT_LEVEL = 6;
/** Answers compressed per request: the fastest level, as each request pays for it. */
const PER_REQUEST_LEVEL = 1;

export const VARY = 'Accept-Encoding';

/** A kept answer, ready to send in either encoding and to compare with a client's ETag. */
export interface KeptBody {
  readonly body: Buffer;
  /** The gzip bytes of `body`, from GZIP_MIN_BYTES on. */
  readonly gzip: Buffer | undefined;
  /** Weak: the gzip and the plain bytes are one representation for If-None-Match. */
  readonly etag: string;
}

/** What a kept answer holds beside its body: charged to the byte budget with it. */
export const keptExtraBytes = (k: KeptBody): number => (k.gzip?.length ?? 0) + 64;

/**
 * The ETag of what an answer shows. An events envelope's `meta` (the head it was read at, as
 * `delta_last_id`) is left out: a commit that changes nothing the caller sees leaves its tag, so
 * a poller gets 304 and keeps its earlier cursor, which stays valid (docs/spec-gaps.md).
 */
export function etagOf(body: Buffer): string {
  const from = body.subarray(0, ENVELOPE_META.length).equals(ENVELOPE_META) ? body.indexOf(EVENTS_KEY) : -1;
  const shown = from > 0 ? body.subarray(from) : body;
  return `W/"${createHash('sha1').update(shown).digest('base64url')}"`;
}
const ENVELOPE_META = Buffer.from('{"meta":');
const EVENTS_KEY = Buffer.from('},"events":[');

/**
 * Compresses and tags an answer that is kept, on the cache fill. A refill whose tag is that of the
 * answer it replaces (`previous`: a commit that changed nothing this answer shows) reuses its gzip
 * bytes: an events envelope's then carry the earlier `meta.delta_last_id`, which is the same
 * representation by the weak tag, as a 304 would leave the client with (docs/spec-gaps.md).
 * Commits elsewhere on the board then cost no compression.
 */
export function keepBody(body: Buffer, previous?: KeptBody): KeptBody {
  const etag = etagOf(body);
  if (previous?.etag === etag) return { body, gzip: previous.gzip, etag };
  return {
    body,
    gzip: body.length >= GZIP_MIN_BYTES ? ownCopy(gzipSync(body, { level: KEPT_LEVEL })) : undefined,
    etag,
  };
}

/**
 * zlib's output is a view of a chunk of at least 16 KB: kept as it is, a well-compressed answer
 * would hold far more memory than the budget is charged for it.
 */
function ownCopy(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/**
 * Whether an Accept-Encoding header takes gzip: named (or `x-gzip`) with a q above 0, or covered by
 * `*` with a q above 0 and not refused by name.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  // The common headers of browsers, fetch and requests, without parsing.
  if (text === 'gzip, deflate, br' || text === 'gzip, deflate' || text === 'gzip') return true;
  let star: boolean | undefined;
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q') q = Number(v);
    }
    const wanted = Number.isFinite(q) && q > 0;
    if (name === 'gzip' || name === 'x-gzip') return wanted;
    if (name === '*') star = wanted;
  }
  return star === true;
}

/** Whether an If-None-Match header names `etag` (weak comparison), or is `*`. */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text === etag) return true;
  const bare = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of text.split(',')) {
    const t = part.trim();
    if (t === '*' || t === bare || t === `W/${bare}`) return true;
  }
  return false;
}

/** An answer compressed per request: a Buffer at once, a stream through a gzip stream. */
export function gzipNow(payload: Buffer | string): Buffer;
export function gzipNow(payload: Readable): Readable;
export function gzipNow(payload: Buffer | string | Readable): Buffer | Readable {
  if (payload instanceof Readable) {
    return payload.pipe(createGzip({ level: PER_REQUEST_LEVEL, flush: constants.Z_NO_FLUSH }));
  }
  return gzipSync(payload, { level: PER_REQUEST_LEVEL });
}
