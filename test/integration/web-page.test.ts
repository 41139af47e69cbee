import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer } from '../helpers/server.ts';

/** A build as Vite lays it out: index.html naming a hashed file under assets/, and a top-level file. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-AbC123.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'document.title = "built";\n');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

test('/ serves the built page without a key: index.html revalidated, hashed assets cached for good', async () => {
  const dir = fakeBuild();
  const s = await startTestServer({ webDir: dir });
  try {
    const index = await fetch(s.url + '/');
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.match(index.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(await index.text(), /index-AbC123\.js/);

    const asset = await fetch(s.url + '/assets/index-AbC123.js');
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(await asset.text(), 'document.title = "built";\n');

    const icon = await fetch(s.url + '/favicon.svg');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('cache-control'), 'no-cache');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing asset or a path out of the build is a 404 in the API shape', async () => {
  const dir = fakeBuild();
  const s = await startTestServer({ webDir: dir });
  try {
    for (const path of ['/assets/index-Zzz.js', '/assets/..%2Findex.html', '/assets/%2e%2e%2f%2e%2e%2fpackage.json']) {
      const res = await fetch(s.url + path);
      assert.equal(res.status, 404, path);
      assert.equal(typeof ((await res.json()) as { message: unknown }).message, 'string', path);
    }
    // The API's routes are unchanged: a key is still needed.
    assert.equal((await fetch(s.url + '/api/v2/sports/4/events/2026-01-01')).status, 401);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a build / answers 503 with the command that makes one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-web-'));
  const s = await startTestServer({ webDir: join(dir, 'dist') });
  try {
    const res = await fetch(s.url + '/');
    assert.equal(res.status, 503);
    const text = await res.text();
    assert.match(text, /npm run build:web/);
    assert.equal(text.trim().split('\n').length, 1);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
