import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { oddsbase } from '../helpers/cli.ts';

test('admin-tokens create, list and revoke', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-admin-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const created = await oddsbase('admin-tokens', 'create', '--label', 'feed one', '--data-dir', dir, '--new-store');
  assert.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim();
  assert.match(token, /^oba_[0-9a-f]{40}$/);
  const listed = await oddsbase('admin-tokens', 'list', '--data-dir', dir);
  assert.match(listed.stdout, new RegExp(`^${token.slice(0, 12)}…  \\S+  active  feed one\\n$`));
  assert.ok(!listed.stdout.includes(token), 'the token itself is not stored');
  // An admin token is no API key: the keys commands do not know it.
  assert.match((await oddsbase('keys', 'list', '--data-dir', dir)).stdout, /no keys/);
  const revoked = await oddsbase('admin-tokens', 'revoke', `${token.slice(0, 12)}…`, '--data-dir', dir);
  assert.equal(revoked.stdout, 'revoked\n');
  assert.match((await oddsbase('admin-tokens', 'list', '--data-dir', dir)).stdout, /revoked \d{4}-/);
  const again = await oddsbase('admin-tokens', 'revoke', token, '--data-dir', dir);
  assert.deepEqual([again.code, again.stderr], [1, 'no active admin token matches\n']);
});

test('serve --feed upstream without --upstream-url is refused with one line, before any work', async () => {
  const r = await oddsbase('serve', '--feed', 'upstream', '--data-dir', '/nonexistent-oddsbase');
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /--feed upstream needs the server to mirror: --upstream-url URL/);
});
