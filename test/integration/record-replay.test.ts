import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { simulatorCatalog } from '../../src/catalog/simulator-catalog.ts';
import { statByName } from '../../src/catalog/stats.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { type RecordedBatch, RecordingError } from '../../src/changelog/recording.ts';
import { recordLog, replayIntoStore } from '../../src/cli/recording.ts';
import { resolveServeConfig } from '../../src/config.ts';
import { openRecording } from '../../src/feeds/replay/recording-file.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { beginFreshLog, epochGaps } from '../../src/ops/backup.ts';
import { StartError } from '../../src/ops/preflight.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { EPOCH_META } from '../../src/store/store.ts';
import { oddsbase } from '../helpers/cli.ts';
import { batch, moneylineMoves, nbaEvent, nbaPrices, score } from '../helpers/fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'oddsbase-record-'));
after(() => rmSync(work, { recursive: true, force: true }));

const E = 'e'.repeat(32);
const T0 = Date.parse('2026-11-23T18:00:00Z');
let dirs = 0;
const newDir = () => join(work, `store-${++dirs}`);
const config = (dataDir: string) => resolveServeConfig({ dataDir, simulator: false, logLevel: 'silent' }, {});

/** Opens the store of `dir` with its ledger, the clock at `clock.now`; `close` closes both. */
async function openLog(dir: string, clock: { now: number }) {
  const store = new SqliteStore(openSqlite(dir));
  await beginFreshLog(store, clock.now);
  const gaps = await epochGaps(store);
  const board = new Board();
  const ledger = await Ledger.open(store, board, new MemoryBus(), {
    now: () => clock.now,
    idsAbove: gaps.at(-1)?.to,
  });
  return { store, ledger, board, close: () => store.close() };
}

/** A small log: an event, its prices, moves 10 s apart, a score. Returns the store's directory. */
async function smallLog(moves = 4): Promise<string> {
  const dir = newDir();
  const clock = { now: T0 };
  const { ledger, close } = await openLog(dir, clock);
  const at = () => new Date(clock.now).toISOString();
  await ledger.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E, '2026-11-23') }, ...nbaPrices(E)]));
  for (const b of moneylineMoves(E, moves, at())) {
    clock.now += 10_000;
    await ledger.apply({ ...b, at: at() });
  }
  clock.now += 10_000;
  await ledger.apply(batch(at(), [{ kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 3, 1) }]));
  await close();
  return dir;
}

/** Every row of a store's log, in id order. */
async function rowsOf(dir: string): Promise<ChangeRecord[]> {
  const store = new SqliteStore(openSqlite(dir));
  try {
    return await store.readChanges({ pricesOnly: false, afterId: 0, toId: Number.MAX_SAFE_INTEGER, limit: 1e6 });
  } finally {
    await store.close();
  }
}

async function readAll(file: string) {
  const r = await openRecording(file);
  const rows: ChangeRecord[] = [];
  const batches: RecordedBatch[] = [];
  for await (const entry of r.rows) {
    if (entry.kind === 'batch') batches.push(entry);
    else rows.push(entry);
  }
  return { header: r.header, rows, batches, firstId: r.firstId };
}

/** The named batches a store keeps, in log order. */
function batchesOf(dir: string): RecordedBatch[] {
  const db = openSqlite(dir);
  try {
    return db
      .prepare(
        "SELECT 'batch' AS kind, batch_id, head_id, committed_ms FROM ingest_batches ORDER BY head_id, committed_ms, batch_id",
      )
      .all() as RecordedBatch[];
  } finally {
    db.close();
  }
}

test('a recording holds the header and every row as stored, plain or gzip', async () => {
  const dir = await smallLog();
  const stored = await rowsOf(dir);
  const plain = join(work, 'small.ndjson');
  const gz = join(work, 'small.ndjson.gz');
  const a = await recordLog({ dataDir: dir }, plain, 0);
  const b = await recordLog({ dataDir: dir }, gz, 0);
  assert.equal(a.rows, stored.length);
  assert.equal(b.rows, stored.length);
  const bytes = readFileSync(gz);
  assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b], 'a .gz name is written gzip');
  // The same lines but the header's time of recording.
  const rowsText = (text: string) => text.slice(text.indexOf('\n'));
  assert.ok(
    rowsText(gunzipSync(bytes).toString()) === rowsText(readFileSync(plain, 'utf8')),
    'gzip holds the same rows',
  );
  const lines = readFileSync(plain, 'utf8').split('\n');
  assert.equal(lines.length, stored.length + 2, 'a header line, a line per row, and the last newline');
  const header = JSON.parse(lines[0]!);
  const store = new SqliteStore(openSqlite(dir));
  assert.equal(header.format, 'oddsbase-change-log');
  assert.equal(header.version, 2);
  assert.equal(header.epoch, await store.getMeta(EPOCH_META));
  assert.deepEqual(header.gaps, await epochGaps(store));
  await store.close();
  assert.equal(header.from_id, 0);
  assert.equal(header.head_id, stored.at(-1)!.id);
  assert.ok(!Number.isNaN(Date.parse(header.recorded_at)));
  assert.deepEqual(
    lines.slice(1, -1).map((l) => JSON.parse(l)),
    stored,
  );
  assert.deepEqual((await readAll(gz)).rows, stored);
});

test('a replay into an empty store gives the same rows under the same epoch, from plain and gzip', async () => {
  const dir = await smallLog();
  for (const name of ['same.ndjson', 'same.ndjson.gz']) {
    const file = join(work, name);
    await recordLog({ dataDir: dir }, file, 0);
    const into = newDir();
    const result = await replayIntoStore(config(into), file, { speed: 0, append: false });
    assert.deepEqual(
      { ...result, headId: undefined },
      { rows: (await rowsOf(dir)).length, skipped: 0, complete: true, headId: undefined },
    );
    assert.deepEqual(await rowsOf(into), await rowsOf(dir));
    const [a, b] = [new SqliteStore(openSqlite(dir)), new SqliteStore(openSqlite(into))];
    assert.equal(await b.getMeta(EPOCH_META), await a.getMeta(EPOCH_META));
    assert.deepEqual(await epochGaps(b), await epochGaps(a));
    await Promise.all([a.close(), b.close()]);
  }
});

test('--from records the rows after an id; --append goes on with the same log', async () => {
  const dir = await smallLog();
  const first = join(work, 'first.ndjson');
  const rec1 = await recordLog({ dataDir: dir }, first, 0);
  // More of the same log, then a recording of only what came after the first.
  const clock = { now: T0 + 3_600_000 };
  const log = await openLog(dir, clock);
  for (const b of moneylineMoves(E, 2, new Date(clock.now).toISOString())) await log.ledger.apply(b);
  await log.close();
  const rest = join(work, 'rest.ndjson.gz');
  const rec2 = await recordLog({ dataDir: dir }, rest, rec1.header.head_id);
  const all = await rowsOf(dir);
  const after = all.filter((r) => r.id > rec1.header.head_id);
  assert.equal(rec2.header.from_id, rec1.header.head_id);
  assert.equal(rec2.rows, after.length);
  assert.deepEqual((await readAll(rest)).rows, after);

  const into = newDir();
  await assert.rejects(
    replayIntoStore(config(into), rest, { speed: 0, append: false }),
    (err: Error) => err instanceof StartError && /an empty store takes a recording of the whole log/.test(err.message),
  );
  await replayIntoStore(config(into), first, { speed: 0, append: false });
  await assert.rejects(
    replayIntoStore(config(into), rest, { speed: 0, append: false }),
    (err: Error) => err instanceof StartError && /--append/.test(err.message),
  );
  const more = await replayIntoStore(config(into), rest, { speed: 0, append: true });
  assert.equal(more.rows, after.length);
  assert.deepEqual(await rowsOf(into), all);
  // Again: every row is there already.
  const again = await replayIntoStore(config(into), first, { speed: 0, append: true });
  assert.deepEqual([again.rows, again.skipped], [0, rec1.rows]);

  // Another log is refused even with --append.
  const other = await smallLog();
  await assert.rejects(
    replayIntoStore(config(other), first, { speed: 0, append: true }),
    (err: Error) => err instanceof StartError && /another change log/.test(err.message),
  );
  await assert.rejects(recordLog({ dataDir: dir }, join(work, 'x.ndjson'), all.at(-1)!.id + 1), /past the log's head/);
});

/** A log of named batches (as ingest commits them): two that write rows, one that changes nothing. */
async function namedLog(): Promise<{ dir: string; clock: { now: number } }> {
  const dir = newDir();
  const clock = { now: T0 };
  const { ledger, close } = await openLog(dir, clock);
  const at = () => new Date(clock.now).toISOString();
  await ledger.applyNamed({
    ...batch(at(), [{ kind: 'event', event: nbaEvent(E, '2026-11-23') }, ...nbaPrices(E)]),
    batch_id: 'feed-1',
  });
  clock.now += 10_000;
  const [move] = moneylineMoves(E, 1, at());
  await ledger.applyNamed({ ...move!, at: at(), batch_id: 'feed-2' });
  clock.now += 10_000;
  await ledger.applyNamed({ at: at(), updates: [], batch_id: 'feed-empty' });
  await close();
  return { dir, clock };
}

test('season records are recorded and replayed: the replayed board holds the newest of each key', async () => {
  const dir = newDir();
  const clock = { now: T0 };
  const { ledger, close } = await openLog(dir, clock);
  const at = () => new Date(clock.now).toISOString();
  await ledger.apply(
    batch(
      at(),
      simulatorCatalog().map((record) => ({ kind: 'catalog' as const, record })),
    ),
  );
  const season = (points: string) => ({
    kind: 'season_stats' as const,
    team_id: 2014,
    year: 2026,
    season_type: 2,
    stats: [{ stat_id: statByName(4, 'points')!.id, value: points }],
    players: [],
  });
  clock.now += 10_000;
  await ledger.apply(batch(at(), [season('100')]));
  clock.now += 10_000;
  await ledger.apply(batch(at(), [season('130'), { ...season('55'), season_type: 3 }]));
  await close();
  const stored = await rowsOf(dir);
  assert.deepEqual(
    stored.filter((r) => r.kind === 'season').map((r) => [r.event_id, JSON.parse(r.payload).stats[0].value]),
    [
      ['#season', '100'],
      ['#season', '130'],
      ['#season', '55'],
    ],
  );

  const file = join(work, 'season.ndjson');
  await recordLog({ dataDir: dir }, file, 0);
  const into = newDir();
  await replayIntoStore(config(into), file, { speed: 0, append: false });
  assert.deepEqual(await rowsOf(into), stored);
  const replayed = await openLog(into, { now: clock.now });
  const board = replayed.board;
  const points = (type: number) =>
    board.seasonRecords.at(2014, 2026, type, board.head)?.team.get(statByName(4, 'points')!.id);
  assert.deepEqual([points(2), points(3)], [130, 55]);
  await replayed.close();
});

test('named batches are recorded after the row each ended at, and a replay keeps them: sent again, they apply once', async () => {
  const { dir } = await namedLog();
  const kept = batchesOf(dir);
  assert.deepEqual(
    kept.map((b) => b.batch_id),
    ['feed-1', 'feed-2', 'feed-empty'],
  );
  const file = join(work, 'named.ndjson');
  const rec = await recordLog({ dataDir: dir }, file, 0);
  assert.deepEqual([rec.rows, rec.batches], [(await rowsOf(dir)).length, 3]);
  // Each batch line comes right after the row its batch ended at; the empty one after the last row.
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as { kind: string; id?: number; head_id?: number });
  for (const b of kept) {
    const i = lines.findIndex((l) => l.kind === 'batch' && (l as RecordedBatch).batch_id === b.batch_id);
    assert.deepEqual(lines[i], b);
    assert.equal(lines[i - 1]!.kind === 'batch' ? lines[i - 1]!.head_id : lines[i - 1]!.id, b.head_id);
  }
  assert.deepEqual((await readAll(file)).batches, kept);

  const into = newDir();
  await replayIntoStore(config(into), file, { speed: 0, append: false });
  assert.deepEqual(await rowsOf(into), await rowsOf(dir));
  assert.deepEqual(batchesOf(into), kept);
  // Sent again to the replayed store, each batch applies nothing and names the head it left there.
  const log = await openLog(into, { now: T0 + 3_600_000 });
  const head = log.ledger.headId;
  const at = new Date(T0 + 3_600_000).toISOString();
  for (const b of kept) {
    const again = await log.ledger.applyNamed({ ...moneylineMoves(E, 1, at)[0]!, at, batch_id: b.batch_id });
    assert.deepEqual(again, { applied: false, headId: b.head_id }, b.batch_id);
  }
  assert.equal(log.ledger.headId, head, 'nothing written');
  const fresh = await log.ledger.applyNamed({ ...moneylineMoves(E, 1, at)[0]!, at, batch_id: 'feed-3' });
  assert.equal(fresh.applied, true);
  await log.close();
});

test('--from records the batches from its id on (one that changed nothing there too); --append keeps each once', async () => {
  const { dir, clock } = await namedLog();
  const first = join(work, 'named-first.ndjson');
  const rec1 = await recordLog({ dataDir: dir }, first, 0);
  const log = await openLog(dir, clock);
  const at = () => new Date(clock.now).toISOString();
  clock.now += 10_000;
  // Changes nothing: its head is where the first recording ended.
  await log.ledger.applyNamed({ at: at(), updates: [], batch_id: 'feed-empty-2' });
  clock.now += 10_000;
  // The second step: the first is the price feed-2 left.
  await log.ledger.applyNamed({ ...moneylineMoves(E, 2, at())[1]!, at: at(), batch_id: 'feed-4' });
  await log.close();
  const rest = join(work, 'named-rest.ndjson');
  const rec2 = await recordLog({ dataDir: dir }, rest, rec1.header.head_id);
  const read = await readAll(rest);
  // The batches that ended at the first recording's head (feed-2 and feed-empty are in both), then those after it.
  assert.deepEqual(
    read.batches.map((b) => b.batch_id),
    ['feed-2', 'feed-empty', 'feed-empty-2', 'feed-4'],
  );
  assert.equal(read.firstId, read.rows[0]!.id, 'the first row, past the batches before it');
  assert.equal(rec2.batches, 4);

  const into = newDir();
  await replayIntoStore(config(into), first, { speed: 0, append: false });
  await replayIntoStore(config(into), rest, { speed: 0, append: true });
  assert.deepEqual(await rowsOf(into), await rowsOf(dir));
  assert.deepEqual(batchesOf(into), batchesOf(dir));
  // Both again: every row and batch is there already.
  await replayIntoStore(config(into), first, { speed: 0, append: true });
  await replayIntoStore(config(into), rest, { speed: 0, append: true });
  assert.deepEqual(batchesOf(into), batchesOf(dir));
});

test('a batch line out of its place is refused with its line', async () => {
  const { dir } = await namedLog();
  const file = join(work, 'named-bad.ndjson');
  await recordLog({ dataDir: dir }, file, 0);
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"feed-1"'));
  // Moved one row later: it no longer follows the row its batch ended at.
  const moved = [...lines];
  [moved[at], moved[at + 1]] = [moved[at + 1]!, moved[at]!];
  const path = join(work, 'named-moved.ndjson');
  writeFileSync(path, moved.join('\n'));
  await assert.rejects(
    readAll(path),
    (err: Error) =>
      err instanceof RecordingError && err.line === at + 2 && /batch feed-1 ended at change/.test(err.message),
  );
});

test('a truncated or corrupt recording is refused with the line that cannot be read', async () => {
  const dir = await smallLog();
  const file = join(work, 'whole.ndjson');
  await recordLog({ dataDir: dir }, file, 0);
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const bad = (name: string, content: string | Buffer) => {
    const path = join(work, name);
    writeFileSync(path, content);
    return path;
  };
  const refused = async (path: string, line: number, why: RegExp) => {
    await assert.rejects(
      readAll(path),
      (err: Error) => err instanceof RecordingError && err.line === line && why.test(err.message),
      `${path}: line ${line}`,
    );
  };
  // Cut in the middle of line 4.
  await refused(bad('cut.ndjson', text.slice(0, text.indexOf(lines[3]!) + 20)), 4, /truncated/);
  // Cut after line 5: the rows stop before the recorded head.
  await refused(bad('short.ndjson', `${lines.slice(0, 5).join('\n')}\n`), 6, /before the recorded head/);
  // A line of garbage, a row without its payload, an id that does not rise.
  const edited = (i: number, line: string) => lines.map((l, j) => (j === i ? line : l)).join('\n');
  await refused(bad('garbage.ndjson', edited(2, '{"id": 3, "kind"')), 3, /not a JSON line/);
  const noPayload = { ...JSON.parse(lines[3]!), payload: undefined };
  await refused(bad('payload.ndjson', edited(3, JSON.stringify(noPayload))), 4, /payload/);
  await refused(bad('order.ndjson', edited(4, lines[2]!)), 5, /does not follow/);
  await refused(bad('kind.ndjson', edited(2, JSON.stringify({ ...JSON.parse(lines[2]!), kind: 'bet' }))), 3, /kind/);
  await refused(bad('header.ndjson', edited(0, '{"format":"csv"}')), 1, /not a recording/);
  // gzip cut short, and gzip bytes damaged.
  const gz = gzipSync(text);
  // Where a gzip cut falls in the text depends on how it compressed: the line after the last whole one.
  await assert.rejects(
    readAll(bad('cut.ndjson.gz', gz.subarray(0, Math.floor(gz.length / 2)))),
    (err: Error) => err instanceof RecordingError && err.line > 1 && /truncated/.test(err.message),
  );
  const damaged = Buffer.from(gz);
  damaged.fill(0x55, 12, 40);
  await assert.rejects(
    readAll(bad('damaged.ndjson.gz', damaged)),
    (err: Error) => err instanceof RecordingError && /corrupt|truncated/.test(err.message),
  );

  // A replay stops at the bad line with what came before it committed; nothing after it.
  const into = newDir();
  await assert.rejects(
    replayIntoStore(config(into), join(work, 'order.ndjson'), { speed: 0, append: false }),
    (err: Error) => err instanceof RecordingError && err.line === 5,
  );
  const kept = await rowsOf(into);
  assert.ok(kept.length <= 3, 'nothing past the bad line is committed');
});

test('bad paths and flags: one line, exit 2', async () => {
  const dir = await smallLog(1);
  const file = join(work, 'cli.ndjson');
  await recordLog({ dataDir: dir }, file, 0);
  const lines = readFileSync(file, 'utf8').split('\n');
  const cut = join(work, 'cli-cut.ndjson');
  writeFileSync(cut, `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 30)}`);
  const cases: [string[], RegExp][] = [
    [['record', '--out', file, '--data-dir', dir], /exists/],
    [['record', '--out', join(work, 'n.ndjson'), '--data-dir', join(work, 'nowhere')], /no store in/],
    [['record', '--out', join(work, 'n.ndjson'), '--from', '-3', '--data-dir', dir], /--from/],
    [['record', '--out', join(work, 'no-such-dir', 'n.ndjson'), '--data-dir', dir], /not a directory/],
    [['record', '--out', '/proc/n.ndjson', '--data-dir', dir], /cannot be written/],
    [['replay', join(work, 'missing.ndjson'), '--data-dir', newDir()], /cannot be read/],
    [['replay', file, '--data-dir', dir], /--append/],
    [['replay', file, '--speed', 'fast', '--data-dir', newDir()], /--speed/],
    [['replay', cut, '--data-dir', newDir()], /line 4: .*truncated/],
    [['serve', '--feed', 'replay', '--data-dir', newDir()], /--replay-file/],
  ];
  const results = await Promise.all(cases.map(([args]) => oddsbase(...args)));
  results.forEach((r, i) => {
    const [args, why] = cases[i]!;
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const said = r.stderr.trim().split('\n');
    assert.equal(said.length, 1, `${args.join(' ')}: one line, not ${r.stderr}`);
    assert.match(said[0]!, why);
  });
});
