import { periodOf } from '../sql/changes.ts';
import type { ChangeRecord } from '../store.ts';

/** The change log's columns in the order `copyRows` writes them. */
export const COPY_COLUMNS = [
  'id',
  'kind',
  'event_id',
  'sport_id',
  'at',
  'committed_ms',
  'price_id',
  'affiliate_id',
  'market_id',
  'period_id',
  'payload',
  'detail',
] as const;

/** The characters COPY's text format gives a meaning: each is written as a backslash sequence. */
const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A text as a field of COPY's text format (PostgreSQL's COPY, "Text Format"): a backslash, tab,
 * newline and carriage return become `\\`, `\t`, `\n` and `\r`; everything else goes as it is.
 * Most texts (JSON payloads, ids, times) hold none of them and are returned unchanged.
 */
export function copyText(s: string): string {
  return SPECIAL.test(s) ? s.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : s;
}

/** A nullable field: `\N` is COPY's null. */
const orNull = (v: number | null): string => (v === null ? '\\N' : String(v));
const textOrNull = (v: string | null): string => (v === null ? '\\N' : copyText(v));

/**
 * Change rows as the data of `COPY changes (COPY_COLUMNS) FROM STDIN`, in the text format: a line
 * a row, its fields separated by tabs. The period is taken from the row's detail, as the column
 * is filled at every commit (schema.ts).
 */
export function copyRows(rows: readonly ChangeRecord[]): string {
  let out = '';
  for (const r of rows) {
    out +=
      `${r.id}\t${copyText(r.kind)}\t${copyText(r.event_id)}\t${r.sport_id}\t${copyText(r.at)}\t${r.committed_ms}\t` +
      `${orNull(r.price_id)}\t${orNull(r.affiliate_id)}\t${orNull(r.market_id)}\t${orNull(periodOf(r.detail))}\t` +
      `${copyText(r.payload)}\t${textOrNull(r.detail)}\n`;
  }
  return out;
}
