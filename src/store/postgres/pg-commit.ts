import type pg from 'pg';
import { batchValues } from '../sql/batches.ts';
import { EVENT_FIELDS, EVENT_UPSERT } from '../sql/events.ts';
import { MARKET_FIELDS } from '../sql/markets.ts';
import { fieldColumns } from '../sql/row-codec.ts';
import type { ChangeRecord, CommitRest, OpenCommit } from '../store.ts';
import { COPY_COLUMNS, copyRows } from './copy-text.ts';

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
export function headerArgs(c: CommitRest): unknown[] {
  // One upsert may not touch a row twice: the last record of an event wins, as row by row.
  const events = [...new Map(c.events.map((e) => [e.event_id, e])).values()];
  return [
    ...fieldColumns(c.markets, MARKET_FIELDS),
    ...fieldColumns(events, EVENT_FIELDS),
    ...(c.batch ? batchValues(c.batch) : [null, null, null]),
  ];
}

type CopyStreams = typeof import('pg-copy-streams');
type CopyStream = ReturnType<CopyStreams['from']>;
let copyStreams: Promise<CopyStreams> | undefined;

/** The driver's COPY streams, loaded at the first commit, as the driver is (database.ts). */
function copyFrom(sql: string): Promise<CopyStream> {
  copyStreams ??= import('pg-copy-streams').then((m) => (m as CopyStreams & { default?: CopyStreams }).default ?? m);
  return copyStreams.then((m) => m.from(sql));
}

/**
 * A commit whose change rows go to PostgreSQL as they are planned, in one transaction on the
 * writer's connection: BEGIN and `COPY changes FROM STDIN` are sent with the first rows added, and
 * each `add`'s rows are written to the COPY at once (one buffer of COPY's text format a part,
 * copy-text.ts), so the server parses and inserts them on its own core while the ledger plans the
 * next part; `finish`
 * ends the COPY, writes the markets, events and batch name in one statement (HEADER_SQL: no table
 * refers to another, so they may follow the rows) and commits. Any failure, the server's or the id
 * check's, rolls the whole transaction back: nothing is written. COPY is PostgreSQL's bulk load:
 * the rows go as lines of text that the server parses directly into tuples, with no statement to
 * plan and no parameter or JSON text to decode a row (docs/benchmarks.md).
 */
export class PgOpenCommit implements OpenCommit {
  readonly streams = true;
  /** Rows' text added before the COPY was open, written to it when it opens. */
  private pending: Buffer[] = [];
  private copy: CopyStream | undefined;
  /** The COPY failed (the server refused a row, the connection broke): nothing more is sent. */
  private failed = false;
  private ended = false;
  private low = Number.POSITIVE_INFINITY;
  private top = 0;
  private end!: (rest: CommitRest | undefined) => void;
  /** What `finish` was given; undefined once aborted. */
  private readonly closing = new Promise<CommitRest | undefined>((resolve) => {
    this.end = resolve;
  });
  /** The transaction, begun at the first rows added or at `finish`: a batch that plans nothing costs nothing. */
  private done: Promise<void> | undefined;

  /**
   * `run` queues the transaction on the writer's connection; `head` is the log's head there; `wrote`
   * is told the new head once the transaction has committed.
   */
  constructor(
    private readonly run: (work: (client: pg.Client) => Promise<void>) => Promise<void>,
    private readonly head: (client: pg.Client) => Promise<number>,
    private readonly wrote: (head: number) => void,
  ) {}

  private begin(): Promise<void> {
    if (this.done) return this.done;
    this.done = this.run(async (client) => {
      const below = await this.head(client);
      const copy = await copyFrom(COPY_SQL);
      await client.query('BEGIN');
      try {
        await this.copyAndHeader(client, copy, below, this.closing);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      this.wrote(Math.max(below, this.top));
    });
    // Its failure is told by `finish`; until then it must not count as unhandled.
    this.done.catch(() => undefined);
    return this.done;
  }

  private async copyAndHeader(
    client: pg.Client,
    copy: CopyStream,
    head: number,
    ended: Promise<CommitRest | undefined>,
  ): Promise<void> {
    const copied = new Promise<void>((resolve, reject) => {
      copy.on('error', (err) => {
        this.failed = true;
        reject(err);
      });
      copy.on('finish', resolve);
    });
    copied.catch(() => undefined);
    client.query(copy);
    this.copy = copy;
    for (const data of this.pending) copy.write(data);
    this.pending = [];
    const rest = await ended;
    // The server refused a row, or the connection broke: its error is the commit's.
    if (this.failed) await copied;
    if (rest === undefined || this.low <= head) {
      // The COPY is ended as it stands and the transaction rolled back. Not a CopyFail: that is an
      // error in the server's log, and an abort is routine (a named batch sent again).
      copy.end();
      await copied.catch(() => undefined);
      // A row at or below the head would be skipped by a reader whose cursor is at the head.
      throw new Error(
        rest === undefined ? 'the commit was aborted' : `change id ${this.low} is not above the head ${head}`,
      );
    }
    copy.end();
    await copied;
    await client.query(HEADER_SQL, headerArgs(rest));
  }

  add(rows: readonly ChangeRecord[]): void {
    if (this.ended) throw new Error('this commit is already finished or aborted');
    for (const r of rows) {
      if (r.id < this.low) this.low = r.id;
      if (r.id > this.top) this.top = r.id;
    }
    if (rows.length === 0 || this.failed) return;
    const data = copyRows(rows);
    if (this.copy) this.copy.write(data);
    else this.pending.push(data);
    void this.begin();
  }

  finish(rest: CommitRest): Promise<void> {
    if (this.ended) return Promise.reject(new Error('this commit is already finished or aborted'));
    this.ended = true;
    this.end(rest);
    return this.begin();
  }

  abort(): Promise<void> {
    this.ended = true;
    this.end(undefined);
    return (this.done ?? Promise.resolve()).catch(() => undefined);
  }
}
