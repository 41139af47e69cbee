import { batchValues } from '../sql/batches.ts';
import { periodOf } from '../sql/changes.ts';
import { EVENT_FIELDS, EVENT_UPSERT } from '../sql/events.ts';
import { MARKET_FIELDS } from '../sql/markets.ts';
import { fieldColumns } from '../sql/row-codec.ts';
import type { Commit } from '../store.ts';

/**
 * A commit's statement: markets, events and change rows, each table's rows bound as arrays. The
 * change rows' columns go as JSON arrays (one text each, made by JSON.stringify) rather than as
 * PostgreSQL arrays: pg writes an array literal in JavaScript, escaping every quote of every
 * payload into a string built piece by piece, which cost the writer more than the rest of the
 * commit (bench/cluster.ts, docs/benchmarks.md). Markets and events bind their fields in the
 * order of their tables' field lists (sql/markets.ts, sql/events.ts).
 */
export const COMMIT_SQL = `
WITH new_markets AS (
  INSERT INTO markets (${MARKET_FIELDS.join(', ')})
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[])
), new_events AS (
  INSERT INTO events (${EVENT_FIELDS.join(', ')})
    SELECT * FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[])
  ${EVENT_UPSERT}
), new_batch AS (
  INSERT INTO ingest_batches (batch_id, head_id, committed_ms)
    SELECT $22::text, $23::bigint, $24::bigint WHERE $22::text IS NOT NULL
)
INSERT INTO changes (id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, period_id, payload, detail)
  SELECT id::bigint, kind, event_id, sport_id::int, at, committed_ms::bigint, price_id::bigint, affiliate_id::int,
         market_id::int, period_id::int, payload, detail
    FROM ROWS FROM (json_array_elements_text($10::json), json_array_elements_text($11::json),
                    json_array_elements_text($12::json), json_array_elements_text($13::json),
                    json_array_elements_text($14::json), json_array_elements_text($15::json),
                    json_array_elements_text($16::json), json_array_elements_text($17::json),
                    json_array_elements_text($18::json), json_array_elements_text($19::json),
                    json_array_elements_text($20::json), json_array_elements_text($21::json))
      AS r (id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, period_id, payload, detail)`;

/** The arguments of COMMIT_SQL: a column of each table a parameter. */
export function commitArgs(c: Commit): unknown[] {
  // One upsert may not touch a row twice: the last record of an event wins, as row by row.
  const events = [...new Map(c.events.map((e) => [e.event_id, e])).values()];
  const rows = c.changes;
  const n = rows.length;
  const cols = {
    id: new Array<number>(n),
    kind: new Array<string>(n),
    event: new Array<string>(n),
    sport: new Array<number>(n),
    at: new Array<string>(n),
    committed: new Array<number>(n),
    price: new Array<number | null>(n),
    affiliate: new Array<number | null>(n),
    market: new Array<number | null>(n),
    period: new Array<number | null>(n),
    payload: new Array<string>(n),
    detail: new Array<string | null>(n),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    cols.id[i] = r.id;
    cols.kind[i] = r.kind;
    cols.event[i] = r.event_id;
    cols.sport[i] = r.sport_id;
    cols.at[i] = r.at;
    cols.committed[i] = r.committed_ms;
    cols.price[i] = r.price_id;
    cols.affiliate[i] = r.affiliate_id;
    cols.market[i] = r.market_id;
    cols.period[i] = periodOf(r.detail);
    cols.payload[i] = r.payload;
    cols.detail[i] = r.detail;
  }
  return [
    ...fieldColumns(c.markets, MARKET_FIELDS),
    ...fieldColumns(events, EVENT_FIELDS),
    ...Object.values(cols).map((col) => JSON.stringify(col)),
    ...(c.batch ? batchValues(c.batch) : [null, null, null]),
  ];
}
