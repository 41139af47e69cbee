import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/store/data-dir-lock.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const holder = (pid: number, host = hostname()) =>
  JSON.stringify({ pid, host, startedAt: '2026-11-23T10:00:00.000Z', command: 'oddsbase serve' });

test('a held directory is refused, naming the holder; released, it can be taken again', (t) => {
  const dir = tempDir(t);
  const lock = lockDataDir(dir);
  const written = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
  assert.equal(written.pid, process.pid);
  assert.equal(written.host, hostname());
  assert.throws(
    () => lockDataDir(dir),
    (err: unknown) =>
      err instanceof DataDirInUseError &&
      err.message.startsWith(`the data directory ${dir} is in use by oddsbase serve (pid ${process.pid}, started `) &&
      err.message.endsWith('; stop it or choose another --data-dir'),
  );
  lock.release();
  lock.release();
  assert.ok(!existsSync(join(dir, LOCK_FILE)));
  lockDataDir(dir).release();
});

test('the lock of a process that has exited is taken over', (t) => {
  const dir = tempDir(t);
  const gone = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(join(dir, LOCK_FILE), holder(gone));
  const lock = lockDataDir(dir);
  t.after(lock.release);
  assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid);
});

test('our own pid in a lock we do not hold is an earlier process that had the same pid', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, LOCK_FILE), holder(process.pid));
  const lock = lockDataDir(dir);
  t.after(lock.release);
  assert.notEqual(readFileSync(join(dir, LOCK_FILE), 'utf8'), holder(process.pid));
});

test('a lock from another host, or one not yet filled in, is held', (t) => {
  const dir = tempDir(t);
  const file = join(dir, LOCK_FILE);
  // A pid that does not run here: only the host keeps the lock from being taken over.
  writeFileSync(file, holder(spawnSync(process.execPath, ['-e', '']).pid!, 'elsewhere'));
  assert.throws(() => lockDataDir(dir), /in use by oddsbase serve \(pid \d+ on elsewhere, started /);
  writeFileSync(file, '');
  assert.throws(() => lockDataDir(dir), /lock file .* cannot be read; if no server runs on it, delete that file/);
});

test('release leaves a lock that another process has taken over', (t) => {
  const dir = tempDir(t);
  const lock = lockDataDir(dir);
  const file = join(dir, LOCK_FILE);
  writeFileSync(file, holder(process.pid + 1));
  lock.release();
  assert.equal(readFileSync(file, 'utf8'), holder(process.pid + 1));
});
