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

/** A change row as a line of COPY's text format: its fields separated by tabs, a newline at the end. */
export function copyLine(r: ChangeRecord): string {
  return (
    `${r.id}\t${copyText(r.kind)}\t${copyText(r.event_id)}\t${r.sport_id}\t${copyText(r.at)}\t${r.committed_ms}\t` +
    `${orNull(r.price_id)}\t${orNull(r.affiliate_id)}\t${orNull(r.market_id)}\t${orNull(periodOf(r.detail))}\t` +
    `${copyText(r.payload)}\t${textOrNull(r.detail)}\n`
  );
}

/**
 * Change rows as the data of `COPY changes (COPY_COLUMNS) FROM STDIN`, in the text format, a line
 * a row. The period is taken from the row's detail, as the column is filled at every commit
 * (schema.ts). Each line is written into one buffer as it is made, rather than joined into a
 * text of the whole batch first: a batch of 2,000 prices is over a megabyte, and the joined text
 * would be made, flattened and encoded only to be dropped.
 */
export function copyRows(rows: readonly ChangeRecord[]): Buffer {
  let buf = Buffer.allocUnsafe(rows.length * 1024);
  let at = 0;
  for (const r of rows) {
    const line = copyLine(r);
    // UTF-8 takes at most 3 bytes for a UTF-16 unit (a surrogate pair's 4 bytes are 2 units).
    if (buf.length - at < line.length * 3) {
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + line.length * 3));
      buf.copy(bigger, 0, 0, at);
      buf = bigger;
    }
    at += buf.write(line, at, 'utf8');
  }
  return buf.subarray(0, at);
}
