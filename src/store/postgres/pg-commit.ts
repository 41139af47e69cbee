import type { Commit } from '../store.ts';

/** The period a row's detail names, or null: the SQLite store's json_extract(detail, '$.period_id'). */
function periodOf(detail: string | null): number | null {
  const m = detail === null ? null : /"period_id":(-?\d+)/.exec(detail);
  return m ? Number(m[1]) : null;
}

/**
 * A commit's statement: markets, events and change rows, each table's rows bound as arrays. The
 * change rows' columns go as JSON arrays (one text each, made by JSON.stringify) rather than as
 * PostgreSQL arrays: pg writes an array literal in JavaScript, escaping every quote of every
 * payload into a string built piece by piece, which cost the writer more than the rest of the
 * commit (bench/cluster.ts, docs/benchmarks.md).
 */
export const COMMIT_SQL = `
WITH new_markets AS (
  INSERT INTO markets (id, event_id, market_id, period_id)
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[])
), new_events AS (
  INSERT INTO events (event_id, sport_id, event_date, info, change_id)
    SELECT * FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[])
  ON CONFLICT (event_id) DO UPDATE SET sport_id = excluded.sport_id, event_date = excluded.event_date,
    info = excluded.info, change_id = excluded.change_id
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
    c.markets.map((m) => m.id),
    c.markets.map((m) => m.event_id),
    c.markets.map((m) => m.market_id),
    c.markets.map((m) => m.period_id),
    events.map((e) => e.event_id),
    events.map((e) => e.sport_id),
    events.map((e) => e.event_date),
    events.map((e) => e.info),
    events.map((e) => e.change_id),
    ...Object.values(cols).map((col) => JSON.stringify(col)),
    c.batch?.id ?? null,
    c.batch?.headId ?? null,
    c.batch?.committedMs ?? null,
  ];
}
