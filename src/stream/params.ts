import type { PlanScope } from '../access/plan-scope.ts';
import { withLiveVariants } from '../catalog/markets.ts';
import type { LogPosition } from '../changelog/change.ts';
import { ApiError, quote } from '../projection/errors.ts';
import { holdsKey } from '../projection/redact.ts';
import {
  dayWindow,
  MAX_PLAYS,
  parseDate,
  parseInteger,
  parseOffset,
  parseParticipantType,
  parseStatuses,
} from '../projection/params.ts';
import { V1_PERIODS } from '../projection/v1-line-sets.ts';
import { StreamError } from './errors.ts';
import type { StreamChannel } from './frames.ts';
import type { SubscriptionParams } from './subscription.ts';

/** Most ids a stream filter takes per list (streams have no 12-id cap; this bounds the index). */
export const MAX_FILTER_IDS = 500;
/** Most characters of a subscription id. */
export const MAX_SUB_ID = 64;

const bad = (message: string) => new StreamError('bad_request', message);

/** A list of positive integers given as an array, a comma-separated string or one number. */
export function intList(name: string, raw: unknown): number[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parts = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : Array.isArray(raw) ? raw : [raw];
  const out = new Set<number>();
  for (const p of parts) {
    const n = typeof p === 'number' ? p : typeof p === 'string' && /^\d{1,9}$/.test(p) ? Number(p) : Number.NaN;
    if (!Number.isInteger(n) || n < 0 || n > 999_999_999) throw bad(`${name} must be integers, got ${clip(p)}`);
    out.add(n);
  }
  if (out.size > MAX_FILTER_IDS) throw bad(`${name} accepts at most ${MAX_FILTER_IDS} ids, got ${out.size}`);
  return [...out];
}

function eventId(name: string, raw: unknown): string {
  // A key is not an event id, and the acknowledgement would repeat it.
  if (typeof raw !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(raw) || holdsKey(raw)) {
    throw bad(`${name} must be event ids, got ${clip(raw)}`);
  }
  return raw;
}

function stringList(name: string, raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parts = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : Array.isArray(raw) ? raw : [raw];
  const out = new Set<string>();
  for (const p of parts) out.add(eventId(name, p));
  if (out.size > MAX_FILTER_IDS) throw bad(`${name} accepts at most ${MAX_FILTER_IDS} ids, got ${out.size}`);
  return [...out];
}

function bool(name: string, raw: unknown): boolean {
  if (raw === undefined || raw === null) return false;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw bad(`${name} must be true or false, got ${clip(raw)}`);
}

/**
 * Client input as an error repeats it: a string or number through `quote` (keys redacted, then cut
 * to 40 characters), an array or object by its kind only, so quoting never walks a value.
 */
const clip = (v: unknown): string => {
  if (typeof v === 'string') return `'${quote(v)}'`;
  if (Array.isArray(v)) return 'an array';
  if (v !== null && typeof v === 'object') return 'an object';
  return quote(String(v));
};

/** A position a client sends back: `{id, epoch}`. */
function position(raw: unknown): LogPosition | undefined {
  if (raw === undefined || raw === null) return undefined;
  const p = raw as { id?: unknown; epoch?: unknown };
  if (typeof raw !== 'object' || !Number.isSafeInteger(p.id) || (p.id as number) < 0 || typeof p.epoch !== 'string') {
    throw bad('resume_from must be a position {id, epoch} as the server sent it');
  }
  return { id: p.id as number, epoch: p.epoch };
}

/** The REST parameter parsers throw ApiError; on a stream they are in-band bad_request errors. */
function rest<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof ApiError) throw bad(err.message);
    throw err;
  }
}

/** The shared filters of both endpoints, within the plan's books; market ids bring their live variants. */
function filters(
  q: Record<string, unknown>,
  scope: PlanScope,
): Pick<SubscriptionParams, 'sportIds' | 'eventIds' | 'requestedMarketIds' | 'marketIds' | 'affiliateIds'> {
  const sports = intList('sport_ids', q.sport_ids);
  const events = stringList('event_ids', q.event_ids);
  const markets = intList('market_ids', q.market_ids);
  const books = intList('affiliate_ids', q.affiliate_ids);
  return {
    sportIds: sports ? new Set(sports) : null,
    eventIds: events ? new Set(events) : null,
    requestedMarketIds: markets,
    marketIds: markets ? new Set(withLiveVariants(markets)) : null,
    affiliateIds: scope.booksFor(books),
  };
}

/** A dedicated stream's filters from its query string; other parameters are left alone. */
function queryParams(query: URLSearchParams, names: readonly string[], scope: PlanScope): SubscriptionParams {
  const q: Record<string, unknown> = {};
  for (const name of names) {
    const v = query.get(name);
    if (v !== null) q[name] = v;
  }
  return { ...filters(q, scope), mainLine: false, snapshot: false, offset: 0, conflate: false };
}

/** The dedicated markets stream's query string (spec: affiliate_ids, sport_ids, event_ids, market_ids). */
export function marketStreamParams(query: URLSearchParams, scope: PlanScope): SubscriptionParams {
  return queryParams(query, ['sport_ids', 'event_ids', 'market_ids', 'affiliate_ids'], scope);
}

const V1_PERIOD_IDS = new Map<string, number>(
  V1_PERIODS.flatMap((p) => [
    [p.named.name, p.named.periodId],
    [String(p.named.periodId), p.named.periodId],
  ]),
);

/**
 * The V1 stream's query string: sport_ids, event_ids, affiliate_ids (a line set spans markets: no
 * market_ids), and `period`: V1 periods by name (period_full_game …) or id, comma-separated.
 */
export function lineStreamParams(query: URLSearchParams, scope: PlanScope): SubscriptionParams {
  const params = queryParams(query, ['sport_ids', 'event_ids', 'affiliate_ids'], scope);
  const raw = query.get('period');
  if (raw !== null && raw.trim() !== '') {
    const ids = new Set<number>();
    for (const part of raw.split(',').map((p) => p.trim())) {
      const id = V1_PERIOD_IDS.get(part);
      if (id === undefined) {
        throw bad(
          `period must be V1 period names or ids (${V1_PERIODS.map((p) => p.named.name).join(', ')}), got ${clip(part)}`,
        );
      }
      ids.add(id);
    }
    params.linePeriods = ids;
  }
  return params;
}

const KNOWN_PARAMS = new Set([
  'sport_ids',
  'event_ids',
  'market_ids',
  'affiliate_ids',
  'main_line',
  'snapshot',
  'date',
  'offset',
  'conflate',
  'resume_from',
  'participant_type',
  'event_status',
  'limit',
  'resume',
]);

/**
 * `resume: {plays: {"<event_id>": <sequence>}}`: the last play sequence the client holds per event.
 * Only on the plays channel, within its event_ids, and not with resume_from (one resume at a time).
 */
function playsResume(
  channel: StreamChannel,
  raw: unknown,
  eventIds: ReadonlySet<string> | null,
): Map<string, number> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (channel !== 'plays') throw bad('resume applies to the plays channel; other channels resume with resume_from');
  const plays = (raw as { plays?: unknown }).plays;
  if (
    typeof raw !== 'object' ||
    Array.isArray(raw) ||
    typeof plays !== 'object' ||
    plays === null ||
    Array.isArray(plays)
  ) {
    throw bad('resume must be {"plays": {"<event_id>": <sequence>}}');
  }
  const out = new Map<string, number>();
  for (const [key, sequence] of Object.entries(plays)) {
    const id = eventId('resume.plays', key);
    if (!Number.isSafeInteger(sequence) || (sequence as number) < 0) {
      throw bad(`resume.plays values must be play sequences (integers from 0), got ${clip(sequence)}`);
    }
    if (eventIds && !eventIds.has(id)) throw bad(`resume.plays names ${clip(id)}, which is not in event_ids`);
    out.set(id, sequence as number);
  }
  if (out.size === 0) throw bad('resume.plays names no event');
  if (out.size > MAX_FILTER_IDS) throw bad(`resume.plays accepts at most ${MAX_FILTER_IDS} events, got ${out.size}`);
  return out;
}

/** A parameter that takes one string (a list as one comma-separated string, as REST takes it). */
function text(name: string, raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return raw.join(',');
  if (typeof raw !== 'string') throw bad(`${name} must be a string, got ${clip(raw)}`);
  return raw;
}

/**
 * A subscribe message's params. The stats channel takes no market or book filter (spec); `offset`
 * may come as a string, as clients send it; `date` is checked against the plan's history window by
 * the caller.
 */
export function subscriptionParams(channel: StreamChannel, raw: unknown, scope: PlanScope): SubscriptionParams {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw bad('params must be an object');
  }
  const q = (raw ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(q)) if (!KNOWN_PARAMS.has(name)) throw bad(`unknown parameter ${clip(name)}`);
  if (channel === 'stats' && (q.market_ids !== undefined || q.affiliate_ids !== undefined)) {
    throw bad('the stats channel takes no market_ids or affiliate_ids');
  }
  // Each filters something only some channels carry: elsewhere it would be silently ignored.
  if (q.participant_type !== undefined && channel !== 'markets')
    throw bad('participant_type applies to the markets channel');
  if (q.event_status !== undefined && channel === 'futures')
    throw bad('event_status does not apply to the futures channel');
  if (q.limit !== undefined && channel !== 'plays')
    throw bad('limit applies to the plays channel (plays per event in a snapshot)');
  const offset = rest(() => parseOffset(q.offset === undefined || q.offset === null ? undefined : String(q.offset)));
  let date: number | undefined;
  if (q.date !== undefined && q.date !== null) {
    if (typeof q.date !== 'string') throw bad('date must be a string YYYY-MM-DD');
    const d = q.date;
    date = rest(() => parseDate(d));
  }
  const params: SubscriptionParams = {
    ...filters(q, scope),
    mainLine: bool('main_line', q.main_line),
    snapshot: bool('snapshot', q.snapshot),
    offset,
    conflate: bool('conflate', q.conflate),
  };
  if (date !== undefined) {
    params.date = date;
    // Futures boards have no date: there a date only makes the snapshot refuse (spec).
    if (channel !== 'futures') params.window = dayWindow(date, offset);
  }
  const participantType = rest(() => parseParticipantType(text('participant_type', q.participant_type)));
  if (participantType) params.participantType = participantType;
  const statuses = rest(() => parseStatuses('event_status', text('event_status', q.event_status)));
  if (statuses) params.eventStatuses = statuses;
  const limit =
    q.limit === undefined || q.limit === null
      ? undefined
      : rest(() => parseInteger('limit', String(q.limit), 1, MAX_PLAYS));
  if (limit !== undefined) params.playsLimit = limit;
  const resume = position(q.resume_from);
  if (resume) params.resumeFrom = resume;
  const plays = playsResume(channel, q.resume, params.eventIds);
  if (plays) {
    if (resume) throw bad('give resume_from or resume, not both');
    params.resumePlays = plays;
  }
  return params;
}

/**
 * Whether `raw` is a subscription id: a client-chosen string (spec), bounded, and not shaped like a
 * key, since every answer about the subscription repeats its id.
 */
export function isSubscriptionId(raw: unknown): raw is string {
  return typeof raw === 'string' && raw.length > 0 && raw.length <= MAX_SUB_ID && !holdsKey(raw);
}

export function subscriptionId(raw: unknown): string {
  if (!isSubscriptionId(raw)) {
    throw bad(`id must be a string of 1 to ${MAX_SUB_ID} characters that is not an API key`);
  }
  return raw;
}
