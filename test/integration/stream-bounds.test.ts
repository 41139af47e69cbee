import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../../src/access/keys.ts';
import { batch, nbaEvent, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, type TestSocket } from '../helpers/ws-client.ts';

/**
 * What one legal client can make the server hold, and how long a key that lost its access keeps
 * streaming: a resume far back is replayed as the client takes it (never queued whole), resumes in
 * flight are bounded, and a key revoked, expired or out of budget has its streams closed.
 */
const E1 = 'b1'.repeat(16);
const MANY = 12_000;
const CHECK_MS = 100;

let s: TestServer;
let wsUrl: string;
const at = () => new Date().toISOString();
const apply = (...updates: Parameters<typeof batch>[1]) => s.server.ledger.apply(batch(at(), updates));

/** `n` price changes on E1: one prop line's price moving at one book. */
async function changes(n: number): Promise<void> {
  for (let done = 0; done < n; done += 2000) {
    await apply(
      ...Array.from({ length: Math.min(2000, n - done) }, (_, i) =>
        price(E1, {
          market_id: 29,
          participant_id: 201401,
          participant_type: 'TYPE_PLAYER',
          affiliate_id: 19,
          line: '20.5',
          price: -110 - ((done + i) % 50),
        }),
      ),
    );
  }
}

before(async () => {
  s = await startTestServer({
    limits: { streamResumeMaxChanges: 100_000, streamResumeMaxConcurrent: 1, streamAccessCheckMs: CHECK_MS },
  });
  wsUrl = `${s.url.replace('http', 'ws')}/api/v2/ws`;
  await apply({ kind: 'event', event: nbaEvent(E1) });
});

after(() => s.close());

const open = (key = s.key) => connect(wsUrl, { 'X-Service-Key': key });

async function subscribe(c: TestSocket, id: string, params: Record<string, unknown>) {
  c.send({ action: 'subscribe', id, channel: 'markets', params: { event_ids: [E1], market_ids: [29], ...params } });
  return c.next((m) => m.id === id && (m.type === 'subscribed' || m.type === 'error'));
}

const waitFor = async (what: string, ok: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('resume', () => {
  test('a resume far back is replayed as the client reads: the server holds about a page, not the replay', async () => {
    const from = s.server.ledger.position;
    await changes(MANY);
    const c = await open();
    await subscribe(c, 'far', { resume_from: from });
    // The client stops reading: what it has not taken stays in the server's queue or the socket.
    c.ws.pause();
    let peak = 0;
    for (let i = 0; i < 25; i++) {
      await new Promise((r) => setTimeout(r, 20));
      peak = Math.max(peak, s.server.services.streams.queuedMessages());
    }
    assert.ok(peak > 0, 'the replay began');
    assert.ok(peak <= 1000, `at most about a page waits in the server (peak ${peak} of ${MANY})`);
    c.ws.resume();
    const done = await c.next((m) => m.type === 'resume_complete', 20_000);
    assert.equal(done.replayed, MANY);
    const deltas = c.messages.filter((m) => m.type === 'delta');
    assert.equal(deltas.length, MANY, 'every change exactly once');
    assert.deepEqual(
      deltas.map((m) => m.sub_sequence),
      deltas.map((_, i) => i + 1),
    );
    for (let i = 1; i < deltas.length; i++)
      assert.ok(deltas[i].position.id > deltas[i - 1].position.id, 'in log order');
    await c.close();
  });

  test('past the resumes the process replays at once: resume_busy with retry_after, then the retry succeeds', async () => {
    const from = s.server.ledger.position;
    await changes(4000);
    const first = await open();
    await subscribe(first, 'a', { resume_from: from });
    first.ws.pause();
    await waitFor('the first replay to wait for its reader', () => s.server.services.streams.queuedMessages() > 0);
    const second = await open();
    await subscribe(second, 'b', { resume_from: from });
    const busy = await second.next((m) => m.type === 'snapshot_error');
    assert.equal(busy.code, 'resume_busy');
    assert.equal(busy.retry_after, 1);
    first.ws.resume();
    assert.equal((await first.next((m) => m.type === 'resume_complete', 20_000)).replayed, 4000);
    second.send({ action: 'resync', id: 'b', resume_from: from });
    assert.equal((await second.next((m) => m.type === 'resume_complete', 20_000)).replayed, 4000);
    await first.close();
    await second.close();
  });
});

describe('a key that loses its access', () => {
  const closedFor = async (c: TestSocket) => {
    const closed = await c.closed;
    const err = c.messages.find((m) => m.type === 'error');
    return { closed, err };
  };

  test('revoked while streaming: an in-band error, then close 1008 policy_violation:key_revoked', async () => {
    const key = await s.newKey('ultra');
    const c = await open(key);
    await subscribe(c, 'r', {});
    await s.server.keys.revoke({ hash: hashKey(key) }, at());
    const { closed, err } = await closedFor(c);
    assert.deepEqual(closed, { code: 1008, reason: 'policy_violation:key_revoked' });
    assert.equal(err.code, 'key_revoked');
  });

  test('expired while streaming: closed the same way', async () => {
    const key = await s.newKey('ultra', { expiresAt: new Date(Date.now() + 1500).toISOString() });
    const c = await open(key);
    await subscribe(c, 'x', {});
    const { closed, err } = await closedFor(c);
    assert.deepEqual(closed, { code: 1008, reason: 'policy_violation:key_revoked' });
    assert.equal(err.code, 'key_revoked');
  });

  test('its budget spent while streaming: an in-band limit_reached, then close policy_violation:limit_reached', async () => {
    // A budget cap of 1 USD: 2,000 overage points at Ultra's $0.0005 reach it.
    const key = await s.newKey('ultra', { budgetCapUsd: 1 });
    const c = await open(key);
    await subscribe(c, 'b', {});
    const account = (await s.server.services.auth.authenticate(key))!;
    s.server.services.access.meter(account, 100_000_000 + 2000, { header: () => undefined });
    const { closed, err } = await closedFor(c);
    assert.deepEqual(closed, { code: 1008, reason: 'policy_violation:limit_reached' });
    assert.equal(err.code, 'limit_reached');
  });

  test('a subscribe after the close is not taken: nothing of the key stays subscribed', async () => {
    const key = await s.newKey('ultra');
    const c = await open(key);
    await subscribe(c, 'one', {});
    const before = s.server.services.streams.index.size;
    await s.server.keys.revoke({ hash: hashKey(key) }, at());
    await c.closed;
    assert.equal(s.server.services.streams.index.size, before - 1);
  });
});

describe('clients that never read', () => {
  test('are cut off once their sockets stay backed up; the server lets go of what they held', async () => {
    const clients = await Promise.all([open(), open(), open()]);
    for (const c of clients) {
      await subscribe(c, 'all', {});
      c.ws.pause();
    }
    const closed = clients.map((c) => c.closed);
    // Far more than the sockets and the kernel take: the queues fill while the clients read nothing.
    for (let round = 0; round < 10 && s.server.services.streams.connectionCount > 0; round++) {
      await changes(4000);
      await new Promise((r) => setTimeout(r, 300));
    }
    for (const c of clients) c.ws.resume();
    for (const got of await Promise.all(closed)) {
      assert.deepEqual(got, { code: 1013, reason: 'buffer_overflow:reconnect_and_catchup' });
    }
    assert.equal(s.server.services.streams.queuedMessages(), 0);
    const r = await s.get('/api/v2/sports');
    assert.equal(r.status, 200, 'the server is alive');
  });
});
