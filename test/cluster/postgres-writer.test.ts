import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { migrate, openPool } from '../../src/store/postgres/database.ts';
import { PgStore } from '../../src/store/postgres/pg-store.ts';
import { WriterLockLost } from '../../src/store/postgres/pg-writer.ts';
import { MIGRATIONS } from '../../src/store/postgres/schema.ts';
import { batch, priceRow } from '../contract/fixtures.ts';
import { assertRefusedInParts } from '../helpers/refused-in-parts.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';

let service: Promise<PostgresService> | undefined;
const postgres = () => (service ??= startPostgres());
after(async () => {
  if (service) await (await service).stop();
});

describe('migrations', () => {
  it('several nodes starting at once apply each migration once', async () => {
    const url = await (await postgres()).createDatabase();
    const pools = await Promise.all(Array.from({ length: 4 }, () => openPool(url)));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p)));
      assert.deepEqual(
        applied.flat().sort(),
        MIGRATIONS.map((m) => m.version).sort(),
        'each version applied by one of them',
      );
      const rows = await pools[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.rows.map((r) => r.version),
        MIGRATIONS.map((m) => m.version),
      );
      assert.deepEqual(await migrate(pools[0]!), [], 'a later start finds nothing to do');
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('a schema newer than this version knows stops the start', async () => {
    const url = await (await postgres()).createDatabase();
    const pool = await openPool(url);
    try {
      await migrate(pool);
      await pool.query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')");
      await assert.rejects(migrate(pool), /schema is version 9999, newer than this oddsbase knows/);
    } finally {
      await pool.end();
    }
  });
});

describe('one writer', () => {
  it('a second store writes only once the first has closed, and continues from its head', async () => {
    const url = await (await postgres()).createDatabase();
    const first = await PgStore.open(url);
    const second = await PgStore.open(url);
    try {
      await first.commit(batch([priceRow({ id: 1, price_id: 1 })]));
      let held!: Promise<unknown>;
      await new Promise<void>((waiting) => {
        held = second.writer.hold(waiting);
      });
      const takeover = held.then(() => second.commit(batch([priceRow({ id: 2, price_id: 1 })])));
      // The second one reads the log meanwhile, as an API node does, and the first one goes on writing.
      assert.equal(await second.lastRowId(), 1);
      await first.commit(batch([priceRow({ id: 3, price_id: 2 })]));
      assert.equal(second.writer.holding, false);
      await first.close();
      await held;
      assert.equal(second.writer.holding, true);
      // Its first write would go below the head the first one left: refused, nothing lost.
      await assert.rejects(takeover, /not above the head 3/);
      await second.commit(batch([priceRow({ id: 4, price_id: 2 })]));
      assert.deepEqual(
        (await second.readChanges({ pricesOnly: false, afterId: 0, toId: 100, limit: 10 })).map((r) => r.id),
        [1, 3, 4],
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('a writer whose connection is cut writes no more, and the lock is free for another', async () => {
    const pgService = await postgres();
    const url = await pgService.createDatabase();
    const errors: unknown[] = [];
    const first = await PgStore.open(url, { onError: (err) => errors.push(err) });
    const second = await PgStore.open(url);
    const admin = new pg.Client({ connectionString: pgService.url() });
    await admin.connect();
    try {
      await first.commit(batch([priceRow({ id: 1, price_id: 1 })]));
      // What a network cut or a killed database backend does to the writer's connection.
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database =
           (SELECT oid FROM pg_database WHERE datname = $1)`,
        [new URL(url).pathname.slice(1)],
      );
      await second.writer.hold();
      await second.commit(batch([priceRow({ id: 2, price_id: 1 })]));
      await assert.rejects(first.commit(batch([priceRow({ id: 3, price_id: 1 })])), WriterLockLost);
      assert.ok(
        errors.some((e) => e instanceof WriterLockLost),
        'the loss is reported',
      );
      assert.equal(await first.lastRowId(), 2, 'its reads go on through the pool');
    } finally {
      await admin.end();
      await first.close();
      await second.close();
    }
  });
});

describe('row count', () => {
  it("is counted before the log's first ANALYZE, then estimated from its statistics and size", async () => {
    const url = await (await postgres()).createDatabase();
    const store = await PgStore.open(url);
    const pool = new pg.Pool({ connectionString: url });
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => priceRow({ id: from + i, price_id: from + i }));
    try {
      // COPY extends the table by many pages at once, some left empty until the next commit: a
      // log of a few batches is large enough for them to count little in the pages a row.
      for (let from = 1; from <= 10_000; from += 2000) await store.commit(batch(rows(from, 2000)));
      assert.equal(await store.rowCount(), 10_000, 'no statistics yet: counted');
      await pool.query('ANALYZE changes');
      for (let from = 10_001; from <= 20_000; from += 2000) await store.commit(batch(rows(from, 2000)));
      // The statistics saw 10,000 rows; the pages written since count the rest.
      const estimate = await store.rowCount();
      assert.ok(estimate > 18_000 && estimate < 22_000, `${estimate} rows estimated of 20000`);
      // Statistics that say a hundred times as many rows a page: the log is not read.
      await pool.query("UPDATE pg_class SET reltuples = reltuples * 100 WHERE oid = 'changes'::regclass");
      assert.ok((await store.rowCount()) > 100_000, 'read from the statistics, not counted');
    } finally {
      await pool.end();
      await store.close();
    }
  });
});

describe('the ledger on PostgreSQL', () => {
  it("a batch refused after parts of its rows went to the server's COPY writes nothing, and its ids are handed out again", async () => {
    const store = await PgStore.open(await (await postgres()).createDatabase());
    try {
      const board = new Board();
      const bus = new MemoryBus();
      const published: CommittedBatch[] = [];
      bus.subscribe((b) => published.push(b));
      const ledger = await Ledger.open(store, board, bus);
      await assertRefusedInParts(ledger, store, board, published);
    } finally {
      await store.close();
    }
  });
});
