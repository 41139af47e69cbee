import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { batch, moneylineMoves, nbaEvent, nbaPrices } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const EVENT = 'e7'.repeat(16);
/** About 1.9 MB: a full page of the markets delta. */
const PAGE = '/api/v2/markets/delta?last_id=0&limit=5000';

let s: TestServer;
let pageBytes = 0;

before(async () => {
  // A send budget far above what these tests hold, so that only the timeout closes connections.
  s = await startTestServer({ limits: { sendTimeoutMs: 1000, sendBudgetMb: 1024 } });
  const at = new Date().toISOString();
  await s.server.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(EVENT) }, ...nbaPrices(EVENT)]));
  // 6,400 price rows.
  for (const moves of moneylineMoves(EVENT, 400, at)) await s.server.ledger.apply(moves);
  const res = await fetch(s.url + PAGE, { headers: { 'X-Service-Key': s.key } });
  pageBytes = (await res.arrayBuffer()).byteLength;
  assert.ok(pageBytes > 1_500_000, `the page is large (${pageBytes} bytes)`);
});

after(() => s.close());

/** A raw connection that sends `count` requests for the page at once (pipelined). */
function pipelined(count: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1', () => {
      const request = `GET ${PAGE} HTTP/1.1\r\nHost: localhost\r\nX-Service-Key: ${s.key}\r\n\r\n`;
      socket.write(request.repeat(count));
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

test('a client that stops reading is disconnected after the send timeout, and its memory returns', async () => {
  const guard = s.server.app.sendGuard;
  const before = guard.stats();
  // 30 MB: more than the kernel's socket buffers take (about 4 MB here).
  const stalled = await pipelined(16);
  stalled.pause();
  stalled.on('error', () => {});

  // Meanwhile a normal client polls the same page and gets every byte of it.
  const started = Date.now();
  let normal = 0;
  let sawUnsent = 0;
  while (Date.now() - started < 2500) {
    const res = await fetch(s.url + PAGE, { headers: { 'X-Service-Key': s.key } });
    assert.equal(res.status, 200);
    assert.equal((await res.arrayBuffer()).byteLength, pageBytes);
    normal++;
    sawUnsent = Math.max(sawUnsent, guard.stats().unsentBytes);
  }
  assert.ok(normal >= 5, `the normal client was served throughout (${normal} pages)`);
  assert.ok(sawUnsent > pageBytes, `the stalled responses sat in the server (${sawUnsent} bytes)`);

  const stats = guard.stats();
  assert.equal(stats.closedStalled, before.closedStalled + 1, 'exactly the stalled connection was closed');
  assert.equal(stats.closedOverBudget, before.closedOverBudget);
  assert.equal(stats.unsentBytes, 0, 'nothing is left unsent once it is gone');
  stalled.destroy();
});

test('a client that keeps reading is never cut off, though its responses take longer than the timeout', async () => {
  const guard = s.server.app.sendGuard;
  const closedBefore = guard.stats().closedStalled;
  const slow = await pipelined(4);
  const started = Date.now();
  let received = 0;
  let closedEarly = false;
  await new Promise<void>((resolve) => {
    slow.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 4 * pageBytes) return resolve();
      // One read of up to 64 kB every 20 ms: slow, but always moving.
      slow.pause();
      setTimeout(() => slow.resume(), 20);
    });
    slow.on('close', () => {
      closedEarly = received < 4 * pageBytes;
      resolve();
    });
  });
  const tookMs = Date.now() - started;
  slow.destroy();
  assert.equal(closedEarly, false, `the server closed the slow reader after ${received} bytes`);
  assert.ok(tookMs > 1500, `the responses took longer than the 1 s timeout (${tookMs} ms)`);
  assert.equal(guard.stats().closedStalled, closedBefore);
});
