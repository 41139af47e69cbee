import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { generateKey } from '../../src/access/keys.ts';
import { compose } from '../../src/compose.ts';
import { resolveServeConfig } from '../../src/config.ts';

/** The app as the server builds it, on a fresh data directory, without listening. */
async function services(logLevel: string, logStream?: NodeJS.WritableStream) {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-err-'));
  // Every request logged, so that each URL reaches the log.
  const config = resolveServeConfig({ dataDir: dir, simulator: false, logLevel, accessLog: true }, {});
  const built = await compose(config, { logStream });
  return {
    app: built.app,
    close: async () => {
      await built.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('an unexpected failure is a 500 with a message, and the server keeps serving', async (t) => {
  const { app, close } = await services('silent');
  t.after(close);
  app.get('/boom', { config: { public: true } }, async () => {
    throw new Error('secret internals');
  });
  const r = await app.inject({ method: 'GET', url: '/boom' });
  assert.equal(r.statusCode, 500);
  assert.deepEqual(r.json(), { message: 'internal server error' });
  assert.equal((await app.inject({ method: 'GET', url: '/api/v2/sports' })).statusCode, 200);
});

test('no spelling of the key parameter, and no key-shaped value, reaches the logs', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const { app, close } = await services('trace', stream);
  t.after(close);
  const key = generateKey();
  for (const url of [
    '/api/v2/markets?key=ob_topsecret&x=1',
    '/api/v2/sports?KEY=ob_topsecret',
    '/api/v2/markets?%6Bey=ob_topsecret',
    '/api/v2/markets?x=1&k%65y=ob_topsecret',
    '/api/v2/markets?api_key=ob_topsecret',
    '/api/v2/markets?key[]=ob_topsecret',
    `/api/v2/events/${key}`,
    `/api/v2/markets/delta?last_id=${key}`,
  ]) {
    await app.inject({ method: 'GET', url });
  }
  const all = lines.join('');
  assert.ok(all.includes('[redacted]'), all);
  assert.ok(!all.includes('ob_topsecret'), all);
  assert.ok(!all.includes(key.slice(3)), all);
});
