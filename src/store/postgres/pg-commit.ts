import type pg from 'pg';
import { batchValues } from '../sql/batches.ts';
import { EVENT_FIELDS, EVENT_UPSERT } from '../sql/events.ts';
import { MARKET_FIELDS } from '../sql/markets.ts';
import { fieldColumns } from '../sql/row-codec.ts';
import type { Commit } from '../store.ts';
import { COPY_COLUMNS, copyRows } from './copy-text.ts';
import { inTransaction } from './database.ts';

/**
 * A commit's markets, events and batch name: one statement, each table's rows bound as arrays.
 * Markets and events bind their fields in the order of their tables' field lists (sql/markets.ts,
 * sql/events.ts).
 */
export const HEADER_SQL = `
WITH new_markets AS (
  INSERT INTO markets (${MARKET_FIELDS.join(', ')})
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[])
), new_events AS (
  INSERT INTO events (${EVENT_FIELDS.join(', ')})
    SELECT * FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[])
  ${EVENT_UPSERT}
)
INSERT INTO ingest_batches (batch_id, head_id, committed_ms)
  SELECT $10::text, $11::bigint, $12::bigint WHERE $10::text IS NOT NULL`;

/** The change rows' bulk load: PostgreSQL's COPY, in its text format (copy-text.ts). */
export const COPY_SQL = `COPY changes (${COPY_COLUMNS.join(', ')}) FROM STDIN`;

/** The arguments of HEADER_SQL: a column of each table a parameter. */
export function headerArgs(c: Commit): unknown[] {
  // One upsert may not touch a row twice: the last record of an event wins, as row by row.
  const events = [...new Map(c.events.map((e) => [e.event_id, e])).values()];
  return [
    ...fieldColumns(c.markets, MARKET_FIELDS),
    ...fieldColumns(events, EVENT_FIELDS),
    ...(c.batch ? batchValues(c.batch) : [null, null, null]),
  ];
}

type CopyStreams = typeof import('pg-copy-streams');
let copyStreams: Promise<CopyStreams> | undefined;

/** The driver's COPY streams, loaded at the first commit, as the driver is (database.ts). */
function copyFrom(sql: string): Promise<ReturnType<CopyStreams['from']>> {
  copyStreams ??= import('pg-copy-streams').then((m) => (m as CopyStreams & { default?: CopyStreams }).default ?? m);
  return copyStreams.then((m) => m.from(sql));
}

/**
 * Writes a commit in one transaction on `client`: the markets, events and batch name, then the
 * change rows by COPY FROM STDIN, sent as one buffer. Either fails whole: nothing is written.
 * COPY is PostgreSQL's bulk load: the rows go as lines of text that the server parses directly
 * into tuples, with no statement to plan and no parameter or JSON text to decode a row
 * (docs/benchmarks.md has it against the statements it replaced).
 */
export async function writeCommit(client: pg.Client, c: Commit): Promise<void> {
  const data = copyRows(c.changes);
  const copy = await copyFrom(COPY_SQL);
  await inTransaction(client, async () => {
    await client.query(HEADER_SQL, headerArgs(c));
    if (data.length === 0) return;
    await new Promise<void>((resolve, reject) => {
      const stream = client.query(copy);
      stream.on('error', reject);
      stream.on('finish', resolve);
      stream.end(data);
    });
  });
}
