import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { openAccounts } from '../../src/compose.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';
import { connect } from '../helpers/ws-client.ts';
import { startPostgres } from './services/postgres.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
const postgres = await startPostgres();
const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-failover-'));
const children: ServedChild['child'][] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await postgres.stop();
  await redis.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The simulator on one small sport (MLS), its live clock fast, so batches come often. */
const SIM = ['--sports', '10', '--speed', '60', '--log-level', 'warn'];

it('kill -9 of the writer: the standby takes over within 10 s, the API node serves throughout, a delta poller sees every id once', async (t) => {
  const databaseUrl = await postgres.createDatabase();
  const cluster = ['--database-url', databaseUrl, '--redis-url', redis.url, '--data-dir', dataDir];
  const first = await serveChild(['--role', 'writer', ...cluster, ...SIM]);
  children.push(first.child);
  // The standby waits for the writer lock and does not listen until it holds it.
  let standbyListening = 0;
  const standby = serveChild(['--role', 'writer', ...cluster, ...SIM]).then((s) => {
    standbyListening = Date.now();
    return s;
  });
  const node = await serveChild(['--role', 'api', ...cluster, '--log-level', 'warn']);
  children.push(node.child);

  const accounts = await openAccounts({ dataDir, databaseUrl });
  const key = generateKey();
  await accounts.keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'poller', custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
  );
  await accounts.close();
  const get = async (url: string, path: string) => {
    const res = await fetch(url + path, { headers: { 'X-Service-Key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };

  // A delta poller on the API node, from a snapshot's cursor on, across the writer's death.
  const snapshot = `/api/v2/sports/10/events/${new Date().toISOString().slice(0, 10)}`;
  const snap = await get(node.url, snapshot);
  assert.equal(snap.status, 200);
  const startCursor = snap.body.meta.delta_last_id as string;
  let cursor = startCursor;
  const seen: number[] = [];
  const statuses = new Map<number, number>();
  // And a markets stream on the API node, open across the writer's death.
  const stream = await connect(`${node.url.replace('http', 'ws')}/api/v2/ws/markets`, { 'X-Service-Key': key });
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const r = await get(node.url, `/api/v2/markets/delta?last_id=${cursor}&limit=1000`);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 200) {
        seen.push(...r.body.deltas.map((d: { id: number }) => d.id));
        cursor = r.body.meta.delta_last_id;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  await new Promise((r) => setTimeout(r, 3000));
  const killedAt = Date.now();
  first.child.kill('SIGKILL');
  const second = await standby;
  const messagesAtTakeover = stream.messages.length;
  children.push(second.child);
  const takeoverMs = standbyListening - killedAt;
  assert.ok(takeoverMs < 10_000, `the standby listened ${takeoverMs} ms after the kill`);
  // The new writer commits; the API node follows it.
  const headAtTakeover = Number((await get(second.url, snapshot)).body.meta.delta_last_id);
  // Live steps of a few games: the new writer's first price rows may take some seconds.
  for (let waited = 0; !seen.some((id) => id > headAtTakeover) && waited < 30_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
  }
  polling = false;
  t.diagnostic(second.stderr().split('\n').slice(-12).join(' | '));

  await poller;

  assert.deepEqual([...statuses.keys()], [200], `the API node answered ${JSON.stringify([...statuses])}`);
  assert.equal(new Set(seen).size, seen.length, 'no id twice');
  assert.ok(
    seen.some((id) => id > headAtTakeover),
    'rows of the new writer reached the poller',
  );
  // Every price row the log holds after the start cursor, up to what the poller reached, exactly once.
  const all: number[] = [];
  for (let from = startCursor; ;) {
    const r = await get(second.url, `/api/v2/markets/delta?last_id=${from}&limit=1000`);
    all.push(...r.body.deltas.map((d: { id: number }) => d.id));
    from = r.body.meta.delta_last_id;
    if (!r.body.meta.has_more) break;
  }
  const reached = seen.at(-1)!;
  // The stream stayed open across the takeover and carries the new writer's changes.
  const afterTakeover = stream.messages.slice(messagesAtTakeover).filter((m) => m?.meta?.type === 'market_price');
  assert.ok(afterTakeover.length > 0, "the new writer's changes reached the stream");
  assert.ok(
    stream.messages.every((m) => m?.type !== 'error'),
    'the stream was never told of an error',
  );
  assert.equal(stream.ws.readyState, stream.ws.OPEN);
  await stream.close();
  assert.deepEqual(
    seen,
    all.filter((id) => id <= reached),
    'no hole',
  );
  t.diagnostic(`takeover ${takeoverMs} ms after the kill; ${seen.length} rows polled`);
  for (const child of [node.child, second.child]) child.kill('SIGTERM');
});
