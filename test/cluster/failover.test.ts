import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import pg from 'pg';
import { generateAdminToken, newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import { generateKey, hashKey, newKeyRecord } from '../../src/access/keys.ts';
import { openAccounts } from '../../src/compose.ts';
import { nbaEvent, price } from '../helpers/fixtures.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';
import { connect, type TestSocket } from '../helpers/ws-client.ts';
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
const TAKEN_OVER = /took over as the writer at change (\d+)/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the time (epoch ms) `child` first printed a line matching `line`, polled every 20 ms. */
async function printed(
  child: ServedChild,
  line: RegExp,
  timeoutMs: number,
): Promise<{ at: number; match: RegExpExecArray }> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(20)) {
    const match = line.exec(child.output());
    if (match) return { at: Date.now(), match };
  }
  throw new Error(`no line ${line} within ${timeoutMs} ms:\n${child.output().slice(-2000)}`);
}

/** Ids of the price rows after `afterId` that moved only liquidity or the source id. */
async function quietRows(databaseUrl: string, afterId: number): Promise<Set<number>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows = await db.query<{ id: number }>(
      `SELECT id::float8 AS id FROM changes
        WHERE kind = 'price' AND id > $1::bigint AND detail::text LIKE '%"quote_unchanged":true%'`,
      [afterId],
    );
    return new Set(rows.rows.map((r) => r.id));
  } finally {
    await db.end();
  }
}

/**
 * How a stream's changes differ from those expected, each named with where it came from: a change
 * carried twice, one carried that should not be (a row that moved only liquidity or the source
 * id, or one the log does not hold), one missed.
 */
function streamDifferences(
  expected: readonly number[],
  streamed: readonly { id: number; from: string }[],
  quiet: ReadonlySet<number>,
): string[] {
  const want = new Set(expected);
  const sources = new Map<number, string[]>();
  for (const s of streamed) sources.set(s.id, [...(sources.get(s.id) ?? []), s.from]);
  const out: string[] = [];
  for (const [id, from] of sources) {
    if (from.length > 1) out.push(`${id} streamed ${from.length} times: by ${from.join(', by ')}`);
    if (!want.has(id)) {
      const why = quiet.has(id) ? 'it moved only liquidity or the source id' : 'not in the log read';
      out.push(`${id} streamed by ${from.join(', by ')}, unexpected: ${why}`);
    }
  }
  for (const id of expected) if (!sources.has(id)) out.push(`${id} missing`);
  return out;
}

it('kill -9 of the writer mid-stream: the hot standby serves while it waits, takes over within 10 s, ids go on with no gap, a stream resumes on another node with every change once', async (t) => {
  const databaseUrl = await postgres.createDatabase();
  const cluster = ['--database-url', databaseUrl, '--redis-url', redis.url, '--data-dir', dataDir];
  const first = await serveChild(['--role', 'writer', ...cluster, ...SIM]);
  children.push(first.child);
  // The standby finds the writer lock held: it serves as an API node while it waits.
  const standby = await serveChild(['--role', 'writer', ...cluster, ...SIM]);
  children.push(standby.child);
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
  const snapshot = `/api/v2/sports/10/events/${new Date().toISOString().slice(0, 10)}`;

  // The standby answers as an API node, and says what it is.
  const waiting = await get(standby.url, '/readyz');
  assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
  assert.equal(waiting.body.role, 'standby');
  assert.equal(waiting.body.follow, 'following');
  assert.equal((await get(first.url, '/readyz')).body.role, 'writer');
  const [fromWriter, fromStandby] = [await get(first.url, snapshot), await get(standby.url, snapshot)];
  assert.equal(fromStandby.status, 200);
  assert.deepEqual(
    fromStandby.body.events.map((e: { event_id: string }) => e.event_id),
    fromWriter.body.events.map((e: { event_id: string }) => e.event_id),
  );

  // A delta poller on the API node, from a snapshot's cursor on, across the writer's death.
  const snap = await get(node.url, snapshot);
  assert.equal(snap.status, 200);
  const startCursor = snap.body.meta.delta_last_id as string;
  let cursor = startCursor;
  const seen: number[] = [];
  const statuses = new Map<number, number>();
  // A multiplexed markets subscription on the writer that dies, resumed on the API node with its
  // last position; and a dedicated markets stream on the API node, open throughout.
  const onWriter = await connect(`${first.url.replace('http', 'ws')}/api/v2/ws`, { 'X-Service-Key': key });
  onWriter.send({ action: 'subscribe', id: 'm', channel: 'markets', params: { sport_ids: [10] } });
  const subscribed = await onWriter.next((m) => m.type === 'subscribed', 10_000);
  const onNode = await connect(`${node.url.replace('http', 'ws')}/api/v2/ws/markets`, { 'X-Service-Key': key });
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const r = await get(node.url, `/api/v2/markets/delta?last_id=${cursor}&limit=1000`);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 200) {
        seen.push(...r.body.deltas.map((d: { id: number }) => d.id));
        cursor = r.body.meta.delta_last_id;
      }
      await sleep(100);
    }
  })();

  // Killed once the writer's stream carried a change (a quiet minute of the games carries none).
  const streamedOnWriter = () => onWriter.messages.some((m) => m.type === 'delta' && m.id === 'm');
  for (let waited = 0; !streamedOnWriter() && waited < 60_000; waited += 100) await sleep(100);
  await sleep(500);
  const killedAt = Date.now();
  first.child.kill('SIGKILL');
  const took = await printed(standby, TAKEN_OVER, 15_000);
  const headAtTakeover = Number(took.match[1]);
  const messagesAtTakeover = onNode.messages.length;
  const takeoverMs = took.at - killedAt;
  assert.ok(takeoverMs < 10_000, `the standby took over ${takeoverMs} ms after the kill`);
  await onWriter.closed;
  const deltas = (c: TestSocket) => c.messages.filter((m) => m.type === 'delta' && m.id === 'm');
  const resumeFrom = deltas(onWriter).at(-1)?.position ?? subscribed.position;
  const resumed = await connect(`${node.url.replace('http', 'ws')}/api/v2/ws`, { 'X-Service-Key': key });
  resumed.send({
    action: 'subscribe',
    id: 'm',
    channel: 'markets',
    params: { sport_ids: [10], resume_from: resumeFrom },
  });
  await resumed.next((m) => m.type === 'resume_complete', 20_000);

  // The new writer commits from the committed state; the API node follows it.
  const pastTakeover = () =>
    seen.some((id) => id > headAtTakeover) && deltas(resumed).some((m) => m.position.id > headAtTakeover);
  for (let waited = 0; !pastTakeover() && waited < 30_000; waited += 250) await sleep(250);
  polling = false;
  await poller;
  t.diagnostic(standby.stderr().split('\n').slice(-8).join(' | '));

  // The stream's changes as they stand now, before the log is read: the new writer goes on
  // committing, and a change streamed after the read would be one the read never saw.
  const before = deltas(onWriter);
  const resumedAt = resumed.messages.findIndex((m) => m.type === 'resume_complete');
  const streamedFrom = [
    ...before.map((m) => ({ id: m.position.id as number, from: 'the writer that died' })),
    ...resumed.messages.flatMap((m, i) =>
      m.type === 'delta' && m.id === 'm'
        ? [{ id: m.position.id as number, from: i < resumedAt ? 'the replay on the API node' : 'the API node live' }]
        : [],
    ),
  ];

  assert.deepEqual([...statuses.keys()], [200], `the API node answered ${JSON.stringify([...statuses])}`);
  assert.equal(new Set(seen).size, seen.length, 'no id twice');
  assert.ok(pastTakeover(), 'rows of the new writer reached the poller and the resumed stream');
  const ready = await get(standby.url, '/readyz');
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.deepEqual([ready.body.role, ready.body.feed, ready.body.follow], ['writer', 'simulator', undefined]);

  // Every price row the log holds after the start cursor, up to what the poller reached, exactly once.
  const all: number[] = [];
  for (let from = startCursor; ;) {
    const r = await get(standby.url, `/api/v2/markets/delta?last_id=${from}&limit=1000`);
    all.push(...r.body.deltas.map((d: { id: number }) => d.id));
    from = r.body.meta.delta_last_id;
    if (!r.body.meta.has_more) break;
  }
  const reached = seen.at(-1)!;
  assert.deepEqual(
    seen,
    all.filter((id) => id <= reached),
    'no hole',
  );
  // The stream's changes: those of the writer that died, then the resumed ones, each price row once
  // but those that moved only liquidity or the source id, which the delta carries and streams do
  // not (the rows the ledger marks `quote_unchanged`).
  const quiet = await quietRows(databaseUrl, Number(startCursor));
  t.diagnostic(`${quiet.size} rows moved only liquidity or the source id`);
  const streamed = streamedFrom.map((s) => s.id);
  const last = streamed.at(-1)!;
  assert.ok(all.at(-1)! >= last, `the writer's log (to ${all.at(-1)}) holds the stream's last change ${last}`);
  const expected = all.filter((id) => id > subscribed.position.id && id <= last && !quiet.has(id));
  assert.deepEqual(
    streamDifferences(expected, streamedFrom, quiet),
    [],
    `every change on the stream exactly once, across the two nodes (resumed from ${resumeFrom.id})`,
  );
  assert.deepEqual(streamed, expected, 'the stream in log order');
  assert.ok(before.length > 0 && streamed.length > before.length);
  // The dedicated stream on the API node stayed open across the takeover and carries the new writer's changes.
  const afterTakeover = onNode.messages.slice(messagesAtTakeover).filter((m) => m?.meta?.type === 'market_price');
  assert.ok(afterTakeover.length > 0, "the new writer's changes reached the node's stream");
  assert.ok(
    onNode.messages.every((m) => m?.type !== 'error'),
    'the stream was never told of an error',
  );
  assert.equal(onNode.ws.readyState, onNode.ws.OPEN);
  await Promise.all([onNode.close(), resumed.close()]);

  // In the log itself: the new writer's ids follow the old one's with no gap and no repeat, and no
  // price id names two lines.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const span = (
      await db.query<{ n: number; low: number; high: number; first_ms: number }>(
        `SELECT count(*)::int AS n, min(id)::float8 AS low, max(id)::float8 AS high,
                (SELECT committed_ms::float8 FROM changes WHERE id = $1::bigint + 1) AS first_ms
           FROM changes WHERE id > $1::bigint - 500`,
        [headAtTakeover],
      )
    ).rows[0]!;
    const holes = await db.query(
      `SELECT id::float8 AS after, next::float8 AS next FROM (SELECT id, lead(id) OVER (ORDER BY id) AS next FROM changes
        WHERE id > $1::bigint - 500) g WHERE next <> id + 1 LIMIT 5`,
      [headAtTakeover],
    );
    assert.deepEqual(holes.rows, [], `ids dense across the takeover at ${headAtTakeover}`);
    assert.ok(span.high > headAtTakeover);
    const shared = await db.query(
      `SELECT price_id FROM changes WHERE price_id IS NOT NULL
        GROUP BY price_id HAVING count(DISTINCT (event_id, market_id, period_id, affiliate_id)) > 1`,
    );
    assert.deepEqual(shared.rows, [], 'no price id reused for another line');
    t.diagnostic(
      `kill -9 -> took over ${takeoverMs} ms, -> first commit of the new writer ${span.first_ms - killedAt} ms; ${seen.length} rows polled, ${streamed.length} streamed`,
    );
  } finally {
    await db.end();
  }
  for (const child of [node.child, standby.child]) child.kill('SIGTERM');
});

const EVENT = 'fo000000000000000000000000000001';
const PER_BATCH = 100;

/** Ingest batch i: PER_BATCH alternate totals of its own (lines `i:k`), so every row tells its batch. */
const batchBody = (i: number) =>
  Array.from({ length: PER_BATCH }, (_, k) =>
    JSON.stringify(
      price(EVENT, { market_id: 3, participant_id: k % 2, line: `${i}:${k >> 1}`, affiliate_id: 19, price: -110 }),
    ),
  ).join('\n');

it('kill -9 of an ingest writer mid-stream of batches: every acknowledged batch kept whole, the standby takes the rest once', async (t) => {
  const databaseUrl = await postgres.createDatabase();
  const cluster = ['--database-url', databaseUrl, '--redis-url', redis.url, '--data-dir', dataDir];
  const ingest = ['--role', 'writer', '--feed', 'ingest', ...cluster, '--log-level', 'warn'];
  const accounts = await openAccounts({ dataDir, databaseUrl });
  const token = generateAdminToken();
  await accounts.adminTokens.insert(newAdminTokenRecord(token));
  await accounts.close();
  const first = await serveChild(ingest);
  children.push(first.child);
  const standby = await serveChild(ingest);
  children.push(standby.child);
  const post = (url: string, id: string, body: string) =>
    fetch(`${url}/admin/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', 'idempotency-key': id },
      body,
    });
  assert.equal((await post(first.url, 'event', JSON.stringify({ kind: 'event', event: nbaEvent(EVENT) }))).status, 200);
  // The standby takes no batch while another writes: busy, to be sent again.
  const early = await post(standby.url, 'early', batchBody(-1));
  assert.equal(early.status, 503);
  assert.ok(early.headers.get('retry-after'));

  const acknowledged = new Set<number>();
  const sent = new Set<number>();
  let next = 0;
  let killed = false;
  const sender = async () => {
    while (!killed) {
      const i = next++;
      sent.add(i);
      try {
        const res = await post(first.url, `b-${i}`, batchBody(i));
        if (res.status === 200) acknowledged.add(i);
        await res.arrayBuffer();
      } catch {
        return; // the connection died with the writer
      }
    }
  };
  const senders = [sender(), sender()];
  while (acknowledged.size < 20) await sleep(20);
  const killedAt = Date.now();
  killed = true;
  first.child.kill('SIGKILL');
  await Promise.all(senders);
  const took = await printed(standby, TAKEN_OVER, 15_000);
  assert.ok(took.at - killedAt < 10_000, `took over ${took.at - killedAt} ms after the kill`);
  // A feed that was not told sends its batches again, to the new writer: each applies once.
  for (const i of sent) {
    if (acknowledged.has(i)) continue;
    for (let tries = 0; ; tries++) {
      const res = await post(standby.url, `b-${i}`, batchBody(i));
      await res.arrayBuffer();
      if (res.status === 200) break;
      assert.ok(res.status === 503 && tries < 50, `batch ${i} sent again: ${res.status}`);
      await sleep(200);
    }
  }
  // Sent once more, acknowledged ones included: the store keeps their names, nothing is written twice.
  for (const i of acknowledged) assert.equal((await post(standby.url, `b-${i}`, batchBody(i))).status, 200);

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const perBatch = new Map<number, number>();
    const rows = await db.query<{ line: string }>(
      "SELECT payload::jsonb ->> 'line' AS line FROM changes WHERE kind = 'price' AND event_id = $1",
      [EVENT],
    );
    for (const r of rows.rows) {
      const i = Number(r.line.split(':')[0]);
      perBatch.set(i, (perBatch.get(i) ?? 0) + 1);
    }
    for (const i of sent) assert.equal(perBatch.get(i), PER_BATCH, `batch ${i} whole, once`);
    assert.equal(perBatch.has(-1), false, 'the batch the standby refused is not written');
    const span = (
      await db.query<{ n: number; low: number; high: number }>(
        'SELECT count(*)::int AS n, min(id)::float8 AS low, max(id)::float8 AS high FROM changes',
      )
    ).rows[0]!;
    assert.equal(span.n, span.high - span.low + 1, 'ids dense across the takeover');
    t.diagnostic(
      `took over ${took.at - killedAt} ms after the kill; ${acknowledged.size} acknowledged, ${sent.size - acknowledged.size} sent again`,
    );
  } finally {
    await db.end();
  }
  // A standby still waiting for the lock stops on SIGTERM as any server does.
  const waiter = await serveChild(ingest);
  children.push(waiter.child);
  assert.equal(((await (await fetch(`${waiter.url}/readyz`)).json()) as { role: string }).role, 'standby');
  // The admin token, revoked as the CLI does, is refused within 2 s by each node that takes
  // batches: the writer, which trusts it from its last read, and the waiting standby.
  const resent = [...acknowledged][0]!;
  const statuses = async () =>
    Promise.all(
      [standby.url, waiter.url].map(async (url) => {
        const res = await post(url, `b-${resent}`, batchBody(resent));
        await res.arrayBuffer();
        return res.status;
      }),
    );
  assert.deepEqual(await statuses(), [200, 503]);
  const tokens = await openAccounts({ dataDir, databaseUrl });
  await tokens.adminTokens.revoke({ hash: hashKey(token) }, new Date().toISOString());
  await tokens.close();
  const revokedAt = Date.now();
  for (;;) {
    // Timed from the sending: a loaded machine may answer a request admitted in time later.
    const sentMs = Date.now() - revokedAt;
    const codes = await statuses();
    if (codes.every((c) => c === 401)) break;
    assert.ok(sentMs < 2000, `answered ${codes.join(', ')} to batches sent ${sentMs} ms after the revocation`);
    await sleep(50);
  }
  waiter.child.kill('SIGTERM');
  const exit = await Promise.race([waiter.exited, sleep(15_000).then(() => undefined)]);
  assert.equal(exit?.code, 0, `the waiting standby exited: ${JSON.stringify(exit)}`);
  standby.child.kill('SIGTERM');
});
