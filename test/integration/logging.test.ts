import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { compose } from '../../src/compose.ts';
import { resolveServeConfig } from '../../src/config.ts';

/** A server's app on a fresh data directory whose log lines are collected, parsed. */
async function logged(input: { accessLog?: boolean; logLevel?: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-log-'));
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const services = await compose(resolveServeConfig({ dataDir: dir, simulator: false, ...input }, {}), {
    logStream: stream,
  });
  return {
    app: services.app,
    lines,
    async close() {
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('by default requests are not logged one by one: a summary line counts them', async () => {
  const s = await logged({});
  for (let i = 0; i < 3; i++) await s.app.inject({ method: 'GET', url: '/api/v2/sports' });
  await s.app.inject({ method: 'GET', url: '/api/v2/markets' });
  assert.deepEqual(
    s.lines.filter((l) => l.req !== undefined || l.res !== undefined),
    [],
    'no line per request',
  );
  // The last summary is written as the server closes.
  await s.close();
  const summary = s.lines.filter((l) => l.msg === 'requests answered');
  assert.equal(summary.length, 1);
  assert.equal(summary[0]!.level, 30);
  assert.equal(summary[0]!.requests, 4);
  assert.deepEqual(summary[0]!.status, { '2xx': 3, '4xx': 1 });
});

test('a request that fails is logged by itself, with its request id, in the default mode too', async () => {
  const s = await logged({});
  s.app.get('/boom', { config: { public: true } }, async () => {
    throw new Error('boom');
  });
  await s.app.inject({ method: 'GET', url: '/api/v2/sports' });
  const r = await s.app.inject({ method: 'GET', url: '/boom' });
  assert.equal(r.statusCode, 500);
  await s.close();
  const errors = s.lines.filter((l) => l.msg === 'unhandled error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.level, 50);
  assert.equal(errors[0]!.reqId, 'req-2');
  assert.match(String((errors[0]!.err as { stack: string }).stack), /Error: boom/);
});

test('--access-log logs every request, with its status and time', async () => {
  const s = await logged({ accessLog: true });
  await s.app.inject({ method: 'GET', url: '/api/v2/sports' });
  await s.close();
  const done = s.lines.filter((l) => l.msg === 'request completed');
  assert.equal(done.length, 1);
  assert.equal((done[0]!.res as { statusCode: number }).statusCode, 200);
  assert.equal(typeof done[0]!.responseTime, 'number');
  assert.equal(s.lines.filter((l) => l.msg === 'requests answered').length, 0, 'no summary beside it');
});

test('--log-level silent writes nothing at all', async () => {
  const s = await logged({ logLevel: 'silent' });
  await s.app.inject({ method: 'GET', url: '/api/v2/sports' });
  await s.close();
  assert.deepEqual(s.lines, []);
});
