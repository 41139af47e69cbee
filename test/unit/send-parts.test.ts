import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import Fastify from 'fastify';
import { sendParts } from '../../src/http/route-kit.ts';
import { SendGuard } from '../../src/http/send-guard.ts';

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

test('what a body of parts still holds counts toward its connection: a pipelining client that stops reading is closed', async (t) => {
  const parts = Array.from({ length: 20 }, (_, i) => Buffer.alloc(100_000, 97 + (i % 26)));
  const app = Fastify();
  const closed: string[] = [];
  const guard = new SendGuard({ stallMs: 60_000, totalBytes: 1e9, connectionBytes: 3_000_000 }, (_f, m) =>
    closed.push(m),
  );
  app.server.on('connection', (socket: Socket) => guard.watch(socket));
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => guard.track(req, res));
  app.get('/page', (_request, reply) => sendParts(reply, parts, () => new Promise((resolve) => setImmediate(resolve))));
  t.after(async () => {
    guard.close();
    await app.close();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  // 8 pages of 2 MB asked at once, none read: more than the kernel's buffers take (about 4 MB each way).
  const client = connect(port, '127.0.0.1');
  client.on('error', () => {});
  client.pause();
  client.write('GET /page HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(8));
  let most = 0;
  for (let i = 0; i < 200 && closed.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    most = Math.max(most, guard.stats().unsentBytes);
  }
  client.destroy();
  assert.ok(most > 3_000_000, `the unsent pages were counted (${most} bytes at most)`);
  assert.deepEqual(closed, ['connection closed: over the per-connection send budget without progress']);
});
