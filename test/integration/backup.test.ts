import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const backup = (dataDir: string, out: string) =>
  run(process.execPath, ['bin/oddsbase.js', 'backup', '--data-dir', dataDir, '--out', out]);

const E = 'bb'.repeat(16);

test('a backup of a running server, restored, resumes with the same ids under a new log epoch', async (t) => {
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
  assert.equal(copy.prepare('SELECT count(*) FROM changes').pluck().get(), copiedHead);
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
    assert.equal(restored.server.ledger.position.id, copiedHead);
    newEpoch = restored.server.ledger.position.epoch;
    assert.notEqual(newEpoch, epoch, 'a restored log has an epoch of its own');
    // The keys came along, and ids continue from the copy's head.
    const before = await restored.get(`/api/v2/markets/delta?last_id=${copiedHead - 2}`, { 'X-Service-Key': original.key });
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
      [[copiedHead + 1, '999']],
    );
  } finally {
    await restored.close({ keepData: true });
  }
  // Its epoch is its own from then on: a later start keeps it.
  const again = await startTestServer({ dataDir: restoredDir });
  try {
    assert.equal(again.server.ledger.position.epoch, newEpoch);
    assert.equal(again.server.ledger.position.id, copiedHead + 1);
  } finally {
    await again.close({ keepData: true });
  }
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
