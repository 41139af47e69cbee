import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { keyPrefix, newKeyRecord } from '../../src/access/keys.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-secrets.ts';
import { oddsbase } from '../helpers/cli.ts';

// Two keys that share a prefix, as keys can: a revocation by that prefix names neither.
const SHARED_1 = `ob_2222222${'a'.repeat(33)}`;
const SHARED_2 = `ob_2222222${'b'.repeat(33)}`;

test('keys revoke by prefix: one active key of it is revoked, several are refused, none is told', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-keys-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const created = await oddsbase('keys', 'create', '--tier', 'pro', '--data-dir', dir, '--new-store');
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  const db = openSqlite(dir);
  try {
    const keys = new SqliteKeyStore(db);
    await keys.insert(newKeyRecord(SHARED_1, 'starter'));
    await keys.insert(newKeyRecord(SHARED_2, 'starter'));
  } finally {
    db.close();
  }
  const shared = await oddsbase('keys', 'revoke', `${keyPrefix(SHARED_1)}…`, '--data-dir', dir);
  assert.deepEqual(
    [shared.code, shared.stderr],
    [1, `2 active keys share the prefix ${keyPrefix(SHARED_1)}; give the full key\n`],
  );
  assert.equal((await oddsbase('keys', 'revoke', SHARED_2, '--data-dir', dir)).stdout, 'revoked\n');
  // One of the two is left active: its prefix names it alone now.
  assert.equal((await oddsbase('keys', 'revoke', keyPrefix(SHARED_1), '--data-dir', dir)).stdout, 'revoked\n');
  assert.equal((await oddsbase('keys', 'revoke', `${keyPrefix(key)}…`, '--data-dir', dir)).stdout, 'revoked\n');
  const again = await oddsbase('keys', 'revoke', keyPrefix(key), '--data-dir', dir);
  assert.deepEqual([again.code, again.stderr], [1, 'no active key matches\n']);
  assert.doesNotMatch((await oddsbase('keys', 'list', '--data-dir', dir)).stdout, /active/);
});
