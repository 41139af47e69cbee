import type { Catalog } from '../catalog/catalog.ts';
import { EVENT_STATUSES, type EventStatus, PARTICIPANT_TYPES, type ParticipantType } from '../domain/types.ts';
import { badRequest, notFound, quote } from './errors.ts';

/**
 * Parsers for query and path parameters. Each returns the typed value or throws a 400 that names
 * the parameter and what it expects; none of them lets a malformed value through as a default.
 */

export const MAX_MARKET_IDS = 12;
export const MAX_PARTICIPANT_IDS = 99;
/** Most plays a page holds: the REST plays route's and a stream's plays snapshot's. */
export const MAX_PLAYS = 500;

const INT = /^-?\d+$/;

export function parseInteger(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!INT.test(raw.trim())) throw badRequest(`${name} must be an integer, got '${quote(raw)}'`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw badRequest(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function parseIntList(name: string, raw: string | undefined, max?: number): number[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,9}$/.test(p)) throw badRequest(`${name} must be comma-separated integers, got '${quote(p)}'`);
    out.push(Number(p));
  }
  const unique = [...new Set(out)];
  if (max !== undefined && unique.length > max) {
    throw badRequest(`${name} accepts at most ${max} ids, got ${unique.length}`);
  }
  return unique;
}

/** market_ids: at most 12 per request; the message says so and how to get around it. */
export function parseMarketIds(raw: string | undefined): number[] | undefined {
  const ids = parseIntList('market_ids', raw);
  if (ids && ids.length > MAX_MARKET_IDS) {
    throw badRequest(
      `market_ids accepts at most ${MAX_MARKET_IDS} market ids per request (got ${ids.length}); ` +
        'split them into batches of 12 or fewer, or omit market_ids to get the default markets',
    );
  }
  return ids;
}

export function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`${name} must be true or false, got '${quote(raw)}'`);
}

export function parseStatuses(name: string, raw: string | undefined): Set<EventStatus> | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const out = new Set<EventStatus>();
  for (const part of raw.split(',')) {
    const s = part.trim().toUpperCase();
    if (!(EVENT_STATUSES as readonly string[]).includes(s)) {
      throw badRequest(`${name} has an unknown event status '${quote(part)}'; known: ${EVENT_STATUSES.join(', ')}`);
    }
    out.add(s as EventStatus);
  }
  return out;
}

export function parseParticipantType(raw: string | undefined): ParticipantType | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = raw.trim().toUpperCase();
  if (!(PARTICIPANT_TYPES as readonly string[]).includes(v)) {
    throw badRequest(`participant_type must be one of ${PARTICIPANT_TYPES.join(', ')}, got '${quote(raw)}'`);
  }
  return v as ParticipantType;
}

/**
 * `include`: comma lists whose values must all be among `allowed`. The parameter may be repeated
 * (`include=a&include=b`), which the query parser hands over as an array.
 */
export function parseInclude(raw: string | readonly string[] | undefined, allowed: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const text of typeof raw === 'string' ? [raw] : (raw ?? [])) {
    if (text.trim() === '') continue;
    for (const part of text.split(',')) {
      const v = part.trim();
      if (!allowed.includes(v)) {
        throw badRequest(`include has an unknown value '${quote(v)}'; allowed: ${allowed.join(', ')}`);
      }
      out.add(v);
    }
  }
  return out;
}

/** The offset parameter: minutes that shift the day boundary, within one day either way. */
export function parseOffset(raw: string | undefined): number {
  return parseInteger('offset', raw, -1440, 1440) ?? 0;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` calendar date, returned as epoch ms of its midnight UTC. */
export function parseDate(raw: string): number {
  const known = validDates.get(raw);
  if (known !== undefined) return known;
  const m = DATE.exec(raw);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) {
    throw badRequest(`date must be a calendar date formatted YYYY-MM-DD, got '${quote(raw)}'`);
  }
  if (validDates.size >= 4096) validDates.clear();
  validDates.set(raw, ms);
  return ms;
}

/** Dates already checked: every snapshot request parses one, and the check formats an ISO string. */
const validDates = new Map<string, number>();

/** A sport id path parameter: 400 when not an integer, 404 when no such sport. */
export function parseSportId(catalog: Catalog, raw: string): number {
  if (!/^\d{1,6}$/.test(raw)) throw badRequest(`sport_id must be an integer, got '${quote(raw)}'`);
  const id = Number(raw);
  if (!catalog.sport(id)) throw notFound('sport', id);
  return id;
}

/** An optional `sport_id` query parameter that narrows a list: undefined for every sport, 404 for an unknown one. */
export function sportFilter(catalog: Catalog, raw: string | undefined): number | undefined {
  const id = parseInteger('sport_id', raw, 0, 1_000_000);
  if (id !== undefined && !catalog.sport(id)) throw notFound('sport', id);
  return id;
}

/** A resource id path parameter (team, player): 400 unless a positive integer; existence is the route's. */
export function parseIdParam(name: string, raw: string): number {
  if (!/^\d{1,12}$/.test(raw) || Number(raw) === 0)
    throw badRequest(`${name} must be a positive integer, got '${quote(raw)}'`);
  return Number(raw);
}

/** Day window [start, end) in epoch ms for a date and an offset in minutes. */
export function dayWindow(dateMs: number, offsetMinutes: number): [number, number] {
  const start = dateMs + offsetMinutes * 60_000;
  return [start, start + 86_400_000];
}
