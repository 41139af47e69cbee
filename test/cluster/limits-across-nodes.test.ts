import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { usedKey } from '../../src/access/access-control.ts';
import { generateKey, hashKey, newKeyRecord } from '../../src/access/keys.ts';
import { monthlyWindow } from '../../src/access/usage.ts';
import { RedisConnectionSlots } from '../../src/access/redis-connection-slots.ts';
import { openAccounts } from '../../src/compose.ts';
import { until } from '../contract/bus.contract.ts';
import { batch, nbaEvent, nbaPrices, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect } from '../helpers/ws-client.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';
import { startRedis } from './services/redis.ts';

/**
 * Limits and metering held by the nodes together: a writer and an API node on one PostgreSQL
 * database and one Redis, each counting what it serves.
 */
const redis = await startRedis();
let postgres: PostgresService;
let databaseUrl: string;
let writer: TestServer;
let node: TestServer;
const E1 = 'c'.repeat(32);
const at = () => new Date().toISOString();
const snapshot = `/api/v2/sports/4/events/${today()}`;

before(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase();
  writer = await startTestServer({ databaseUrl, redisUrl: redis.url, role: 'writer', trustProxy: '127.0.0.1' });
  await writer.server.ledger.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E1) }, ...nbaPrices(E1)]));
  node = await startTestServer({ databaseUrl, redisUrl: redis.url, role: 'api', trustProxy: '127.0.0.1' });
  await until(() => node.server.board.head === writer.server.board.head, 10_000, 'the API node to follow');
});
after(async () => {
  await node?.close();
  await writer?.close();
  await postgres?.stop();
  await redis.close();
});

/** The counter of a monthly-billed key's points this month. */
const usedKeyOf = (key: string) => usedKey({ keyHash: hashKey(key) }, monthlyWindow(Date.now()).id);
const get = (s: TestServer, path: string, key: string, from?: string) =>
  s.get(path, { 'X-Service-Key': key, ...(from ? { 'X-Forwarded-For': from } : {}) });

/** `oddsbase keys show` against the database, as an operator runs it. */
async function keysShow(key: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/oddsbase.js', 'keys', 'show', key, '--database-url', databaseUrl],
    { timeout: 60_000 },
  );
  return stdout;
}

describe('usage across nodes', () => {
  it('every data point served on either node is saved once, through a Redis restart', async () => {
    const key = await writer.newKey('enterprise', { custom: JSON.stringify({ burstPerSecond: 1000 }) });
    let served = 0;
    const use = async (s: TestServer) => {
      const r = await get(s, snapshot, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const points = Number(r.headers.get('x-datapoints'));
      assert.ok(points > 0);
      served += points;
    };
    for (let i = 0; i < 5; i++) await Promise.all([use(writer), use(node)]);
    // Saved while the nodes saw each other's points, then while each counts alone.
    await Promise.all([writer.server.services.saveCounters(), node.server.services.saveCounters()]);
    await redis.stop();
    for (let i = 0; i < 5; i++) await Promise.all([use(writer), use(node)]);
    await node.server.services.saveCounters();
    await writer.server.services.saveCounters();
    await redis.start();
    for (let i = 0; i < 3; i++) await Promise.all([use(writer), use(node)]);
    await Promise.all([writer.server.services.saveCounters(), node.server.services.saveCounters()]);
    const shown = await keysShow(key);
    assert.match(shown, new RegExp(`^used\\s+${served} of `, 'm'), shown);
    // The nodes' views agree again once Redis is back: the usage a key sees is the saved total.
    await until(
      () => [writer, node].every((s) => s.server.counters.get(usedKeyOf(key)) === served),
      10_000,
      `both nodes to see ${served} points used`,
    );
    const seen = await get(node, snapshot, key);
    assert.equal(seen.headers.get('x-datapoints-used'), String(served + Number(seen.headers.get('x-datapoints'))));
  });
});

describe('WebSocket connection caps across nodes', () => {
  const stream = (s: TestServer, key: string) =>
    connect(`${s.url.replace('http', 'ws')}/api/v2/ws/markets`, { 'X-Service-Key': key });

  it('a key allowed 5 streams gets 5 over two nodes, not 10; a closed one frees a slot on the other', async (t) => {
    // Ultra: 5 connections, and 10 requests a second, which the spaced upgrades stay below.
    const key = await writer.newKey('ultra');
    const open: Awaited<ReturnType<typeof stream>>[] = [];
    t.after(() => open.forEach((ws) => ws.close()));
    for (let i = 0; i < 5; i++) {
      open.push(await stream(i % 2 === 0 ? writer : node, key));
      await new Promise((r) => setTimeout(r, 250));
    }
    for (const s of [writer, node]) {
      await new Promise((r) => setTimeout(r, 1100));
      await assert.rejects(stream(s, key), /upgrade refused: 429/);
    }
    // Closed on the writer: the node may take its slot once the writer has given it back.
    open.shift()!.close();
    await new Promise((r) => setTimeout(r, 1100));
    let again: Awaited<ReturnType<typeof stream>> | undefined;
    for (let i = 0; !again; i++) {
      again = await stream(node, key).catch(() => undefined);
      if (!again) {
        assert.ok(i < 5, 'the slot given back on the writer never reached the node');
        await new Promise((r) => setTimeout(r, 1100));
      }
    }
    open.push(again);
  });

  it('a node killed with its streams open: its slots stop counting once its lease ends', async () => {
    const prefix = `test:${randomUUID()}:`;
    const leaseMs = 1500;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { Redis } from 'ioredis';
         import { RedisConnectionSlots } from './src/access/redis-connection-slots.ts';
         const slots = new RedisConnectionSlots({ url: ${JSON.stringify(redis.url)}, driver: Redis, prefix: ${JSON.stringify(prefix)}, leaseMs: ${leaseMs} });
         await new Promise((r) => setTimeout(r, 200));
         for (let i = 0; i < 3; i++) if (!(await slots.take('k', 3))) process.exit(3);
         console.log('taken');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await until(() => out.includes('taken'), 30_000, 'the other process to take 3 slots');
    const here = new RedisConnectionSlots({ url: redis.url, driver: Redis, prefix, leaseMs });
    try {
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await here.take('k', 3), false, 'the living process holds all 3');
      child.kill('SIGKILL');
      const killedAt = Date.now();
      while (!(await here.take('k', 3))) {
        assert.ok(Date.now() - killedAt < leaseMs + 1000, 'the dead process still counts past its lease');
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(Date.now() - killedAt >= leaseMs / 3, 'freed before its lease could have ended');
      assert.equal(here.count('k'), 1);
    } finally {
      child.kill('SIGKILL');
      await here.close();
    }
  });
});

describe('keys made and revoked on the CLI', () => {
  it('take effect on every node within 2 s; a revoked key closes its streams on every node', async (t) => {
    const accounts = await openAccounts({ dataDir: node.dataDir, databaseUrl });
    t.after(() => accounts.close());
    const key = generateKey();
    await accounts.keys.insert(newKeyRecord(key, 'ultra', { label: 'cli' }));
    for (const s of [writer, node]) assert.equal((await get(s, snapshot, key)).status, 200);
    const streams = await Promise.all(
      [writer, node].map((s) => connect(`${s.url.replace('http', 'ws')}/api/v2/ws/markets`, { 'X-Service-Key': key })),
    );
    t.after(() => streams.forEach((ws) => ws.close()));
    await accounts.keys.revoke({ hash: hashKey(key) }, at());
    const revokedAt = Date.now();
    for (;;) {
      const codes = await Promise.all([writer, node].map(async (s) => (await get(s, snapshot, key)).status));
      if (codes.every((c) => c === 401)) break;
      assert.ok(
        Date.now() - revokedAt < 2000,
        `served ${codes.join(', ')} ${Date.now() - revokedAt} ms after the revocation`,
      );
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const ws of streams) {
      const closed = await Promise.race([ws.closed, new Promise((r) => setTimeout(() => r('still open'), 5000))]);
      assert.deepEqual(closed, { code: 1008, reason: 'policy_violation:key_revoked' });
    }
  });
});

describe('the failed-key ceiling across nodes', () => {
  it('30 wrong keys from one address spread over two nodes trip it as on one; a key that passed goes on', async () => {
    // An address of its own (through the trusted proxy): the other tests' failures are not its.
    const from = '203.0.113.7';
    const good = await writer.newKey('ultra');
    assert.equal((await get(writer, snapshot, good, from)).status, 200);
    // Half the guesses on each node: either alone stays below the ceiling of 30.
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? writer : node, snapshot, generateKey(), from)),
    );
    assert.deepEqual(new Set(guesses.map((r) => r.status)), new Set([401]));
    await until(
      () => [writer, node].every((s) => s.server.counters.get(`fk:${from}`) === 30),
      5000,
      'both nodes to see 30 failures',
    );
    for (const s of [writer, node]) {
      const r = await get(s, snapshot, generateKey(), from);
      assert.equal(r.status, 429);
      assert.equal(r.body.error, 'Too many failed key checks');
    }
    // Known on the writer only, yet let through on the node: keys that passed are shared too.
    const onNode = await get(node, snapshot, good, from);
    assert.equal(onNode.status, 200);
  });
});
