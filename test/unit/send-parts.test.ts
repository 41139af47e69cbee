import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { sendParts } from '../../src/http/route-kit.ts';

test('a body of parts is sent whole, with a turn taken before each part of 64 KB or more', async (t) => {
  const big = (c: string) => Buffer.alloc(100_000, c);
  const parts = [Buffer.from('{"deltas":['), big('a'), Buffer.from(','), big('b'), Buffer.from(']}')];
  const log: string[] = [];
  const app = Fastify();
  t.after(() => app.close());
  app.get('/turns', (_request, reply) =>
    sendParts(reply, parts, async () => {
      log.push('turn');
    }),
  );
  app.get('/plain', (_request, reply) => sendParts(reply, parts));
  for (const url of ['/turns', '/plain']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-length'], String(200_014));
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(res.rawPayload.equals(Buffer.concat(parts)), url);
  }
  assert.deepEqual(log, ['turn', 'turn']);
});
