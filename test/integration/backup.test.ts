import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { EPOCH_GAP } from '../../src/ops/backup.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { logBase, startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const backup = (dataDir: string, out: string) =>
  run(process.execPath, ['bin/oddsbase.js', 'backup', '--data-dir', dataDir, '--out', out]);

const E = 'bb'.repeat(16);

test('a backup of a running server, restored, keeps its ids and continues past a gap under a new log epoch', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'oddsbase-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const original = await startTestServer();
  t.after(() => original.close());
  const { ledger } = original.server;
  await ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const base = ledger.headId;

  // The server keeps committing while the backup runs: batches of exactly two rows.
  let p = 100;
  let committing = true;
  const writer = (async () => {
    while (committing) {
      p++;
      await ledger.apply(
        batch(new Date().toISOString(), [
          price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p }),
          price(E, { market_id: 1, participant_id: 2014, affiliate_id: 19, price: -p - 20 }),
        ]),
      );
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const file = join(scratch, 'oddsbase-backup.db');
  const { stdout } = await backup(original.dataDir, file);
  committing = false;
  await writer;
  const m = /change log up to id (\d+) \(epoch ([0-9a-f-]+)\)/.exec(stdout);
  assert.ok(m, stdout);
  const copiedHead = Number(m[1]);
  const epoch = ledger.position.epoch;
  assert.equal(m[2], epoch);
  assert.ok(copiedHead > base && ledger.headId > copiedHead, `base ${base}, copy ${copiedHead}, now ${ledger.headId}`);

  // One consistent file: whole batches only, every row as the server has it.
  const copy = new Database(file, { readonly: true });
  assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
  assert.equal(
    copy.prepare('SELECT count(*) FROM changes').pluck().get(),
    copiedHead - (await logBase(original.server.services.store)),
  );
  assert.equal((copiedHead - base) % 2, 0, 'the copy ends on a batch boundary');
  const rows = (db: Database.Database) =>
    db.prepare('SELECT id, payload FROM changes WHERE id <= ? ORDER BY id').all(copiedHead);
  const live = new Database(join(original.dataDir, 'oddsbase.db'), { readonly: true });
  assert.deepEqual(rows(copy), rows(live));
  live.close();
  copy.close();

  // A backup never overwrites a file.
  await assert.rejects(backup(original.dataDir, file), (err: any) => {
    assert.equal(err.code, 1);
    assert.match(err.stderr, /exists; a backup never overwrites a file/);
    return true;
  });

  // Restored: the copy as a new data directory's store.
  const restoredDir = join(scratch, 'restored');
  mkdirSync(restoredDir);
  copyFileSync(file, join(restoredDir, 'oddsbase.db'));
  const restored = await startTestServer({ dataDir: restoredDir });
  let newEpoch: string;
  try {
    const start = copiedHead + EPOCH_GAP;
    assert.equal(restored.server.ledger.position.id, start);
    newEpoch = restored.server.ledger.position.epoch;
    assert.notEqual(newEpoch, epoch, 'a restored log has an epoch of its own');
    // The keys came along; the copy's ids name the same rows, and new ids continue past the gap.
    const before = await restored.get(`/api/v2/markets/delta?last_id=${copiedHead - 2}`, {
      'X-Service-Key': original.key,
    });
    assert.equal(before.status, 200);
    assert.deepEqual(
      before.body.deltas.map((r: { id: number }) => r.id),
      [copiedHead - 1, copiedHead],
    );
    await restored.server.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 999 })]),
    );
    const after = await restored.get(`/api/v2/markets/delta?last_id=${copiedHead}`, { 'X-Service-Key': original.key });
    assert.deepEqual(
      after.body.deltas.map((r: { id: number; price: string }) => [r.id, r.price]),
      [[start + 1, '999']],
    );
    assert.equal(after.body.meta.epoch, newEpoch);
  } finally {
    await restored.close({ keepData: true });
  }
  // Its epoch is its own from then on: a later start keeps it.
  const again = await startTestServer({ dataDir: restoredDir });
  try {
    assert.equal(again.server.ledger.position.epoch, newEpoch);
    assert.equal(again.server.ledger.position.id, copiedHead + EPOCH_GAP + 1);
  } finally {
    await again.close({ keepData: true });
  }
});

test('a restored server refuses the cursors the original handed out past the copy, on every delta feed', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'oddsbase-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const original = await startTestServer();
  t.after(() => original.close());
  // A key of both interfaces, made before the copy so that the restored server has it too.
  const both = await original.newKey('enterprise', { v1: true, custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
  const key = { 'X-Service-Key': both };
  const { ledger } = original.server;
  const move = (p: number) =>
    batch(new Date().toISOString(), [
      price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p }),
      price(E, { market_id: 1, participant_id: 2014, affiliate_id: 19, price: -p - 20 }),
    ]);
  await ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const file = join(scratch, 'oddsbase-backup.db');
  await backup(original.dataDir, file);
  const copiedHead = ledger.headId;
  const oldEpoch = ledger.position.epoch;
  // The original goes on: its clients hold cursors past the copy's head.
  for (let p = 101; p <= 124; p++) await ledger.apply(move(p));
  const oldCursors = [copiedHead + 1, copiedHead + 20, ledger.headId];
  const oldUuid = (await original.get('/api/v2/delta?last_id=00000000-0000-0000-0000-000000000000&limit=500', key)).body
    .meta.delta_last_id as string;
  const rowsAfter = async (server: typeof original, cursor: number) =>
    (await server.get(`/api/v2/markets/delta?last_id=${cursor}`, key)).body.deltas.map(
      (r: { id: number; price: string }) => [r.id, r.price],
    );
  const beforeCopy = await rowsAfter(original, copiedHead - 4);

  const restoredDir = join(scratch, 'restored');
  mkdirSync(restoredDir);
  copyFileSync(file, join(restoredDir, 'oddsbase.db'));
  const restored = await startTestServer({ dataDir: restoredDir });
  t.after(() => restored.close());
  const newEpoch = restored.server.ledger.position.epoch;
  assert.notEqual(newEpoch, oldEpoch);
  // The restored server commits more than the original did after the copy: its head passes every old cursor.
  for (let p = 501; p <= 560; p++) await restored.server.ledger.apply(move(p));
  assert.ok(restored.server.ledger.headId > oldCursors.at(-1)!);

  for (const cursor of oldCursors) {
    for (const path of [`/api/v2/markets/delta?last_id=${cursor}`, `/api/v1/sports/4/events/delta?last_id=${cursor}`]) {
      const r = await restored.get(path, key);
      assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /too far behind.*restored from.*epoch/s);
      assert.ok(r.body.error.includes(newEpoch), r.body.error);
    }
  }
  for (const [path, cursor] of [
    ['/api/v2/delta', oldUuid],
    ['/api/v1/delta', oldUuid],
    ['/api/v1/deltaV2', oldUuid],
  ] as const) {
    const r = await restored.get(`${path}?last_id=${cursor}`, key);
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /too far behind/);
  }
  // A cursor at or below the copy's head names the same rows as on the original, then the new ones.
  const same = await rowsAfter(restored, copiedHead - 4);
  assert.deepEqual(same.slice(0, 4), beforeCopy.slice(0, 4));
  assert.deepEqual(same[4], [copiedHead + EPOCH_GAP + 1, '501']);
  const first = await restored.get(`/api/v2/markets/delta?last_id=${copiedHead}`, key);
  assert.equal(first.status, 200);
  assert.equal(first.body.meta.epoch, newEpoch);
  // The restored server's own cursors are served, on every feed.
  const today = new Date().toISOString().slice(0, 10);
  const snapshotCursor = (await restored.get(`/api/v2/sports/4/events/${today}`, key)).body.meta.delta_last_id;
  const uuid = (await restored.get('/api/v2/delta', key)).body.meta.delta_last_id;
  for (const path of [
    `/api/v2/markets/delta?last_id=${snapshotCursor}`,
    `/api/v1/sports/4/events/delta?last_id=${snapshotCursor}`,
    `/api/v2/delta?last_id=${uuid}`,
    `/api/v1/delta?last_id=${uuid}`,
  ]) {
    const r = await restored.get(path, key);
    assert.equal(r.status, 200, path);
    assert.equal(r.body.meta.epoch, newEpoch, path);
  }
});

test('a data directory emptied and started again refuses the cursors its earlier log handed out', async (t) => {
  const first = await startTestServer();
  const dataDir = first.dataDir;
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await first.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
  for (let p = 101; p <= 140; p++) {
    await first.server.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p })]),
    );
  }
  const today = new Date().toISOString().slice(0, 10);
  const oldCursor = Number((await first.get(`/api/v2/sports/4/events/${today}`)).body.meta.delta_last_id);
  const oldUuid = (await first.get('/api/v2/delta')).body.meta.delta_last_id;
  const oldEpoch = first.server.ledger.position.epoch;
  await first.close({ keepData: true });

  // Emptied, as an operator starting over would, and started again: a new log, a new epoch.
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir);
  const second = await startTestServer({ dataDir });
  t.after(() => second.close({ keepData: true }));
  const newEpoch = second.server.ledger.position.epoch;
  assert.notEqual(newEpoch, oldEpoch);
  const key = {
    'X-Service-Key': await second.newKey('enterprise', {
      v1: true,
      custom: JSON.stringify({ burstPerSecond: 1_000_000 }),
    }),
  };
  // More changes than the earlier log held, so a reused id would lie below the new head.
  await second.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
  for (let p = 201; p <= 300; p++) {
    await second.server.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p })]),
    );
  }
  assert.ok(second.server.ledger.headId > oldCursor);
  for (const path of [
    `/api/v2/markets/delta?last_id=${oldCursor}`,
    `/api/v1/sports/4/events/delta?last_id=${oldCursor}`,
  ]) {
    const r = await second.get(path, key);
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /too far behind.*earlier log/s);
    assert.ok(r.body.error.includes(newEpoch), r.body.error);
  }
  for (const path of ['/api/v2/delta', '/api/v1/delta']) {
    const r = await second.get(`${path}?last_id=${oldUuid}`, key);
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /too far behind/);
  }
  // The new log's own cursors are served, from 0 as documented.
  const fromStart = await second.get('/api/v2/markets/delta?last_id=0&limit=5');
  assert.equal(fromStart.status, 200);
  assert.equal(fromStart.body.meta.epoch, newEpoch);
  const snapshotCursor = (await second.get(`/api/v2/sports/4/events/${today}`)).body.meta.delta_last_id;
  assert.equal((await second.get(`/api/v2/markets/delta?last_id=${snapshotCursor}`)).status, 200);
});

test('backup of a directory without a store fails with a message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-nostore-'));
  try {
    await assert.rejects(backup(dir, join(dir, 'out.db')), (err: any) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /no store in/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
