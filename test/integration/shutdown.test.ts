import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashKey } from '../../src/access/keys.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { today } from '../helpers/fixtures.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';

/**
 * The real command (`node bin/oddsbase.js serve`) stopped by signals: under load, with a client
 * that stops reading, and twice. One data directory serves all three, in order.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-shutdown-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** An Enterprise key with a per-second ceiling no test reaches, made before the server starts. */
function makeKey(): string {
  const key = execFileSync(
    process.execPath,
    ['bin/oddsbase.js', 'keys', 'create', '--tier', 'enterprise', '--data-dir', dataDir, '--new-store'],
    {
      encoding: 'utf8',
    },
  ).trim();
  const db = openSqlite(dataDir);
  db.prepare('UPDATE api_keys SET custom = ? WHERE key_hash = ?').run(
    JSON.stringify({ burstPerSecond: 1e9 }),
    hashKey(key),
  );
  db.close();
  return key;
}

/**
 * The server, ready; killed when the test `t` ends if it is still running, so that a failed
 * assertion does not leave it holding the test's process open.
 */
async function serve(t: TestContext, args: string[], env: Record<string, string> = {}): Promise<ServedChild> {
  const served = await serveChild(['--data-dir', dataDir, ...args], { env });
  t.after(() => {
    if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill('SIGKILL');
  });
  for (let i = 0; ; i++) {
    assert.equal(served.child.exitCode, null, `the server exited while starting:\n${served.output()}`);
    if ((await fetch(`${served.url}/readyz`)).status === 200) break;
    assert.ok(i < 1200, `not ready after 5 minutes:\n${served.output()}`);
    await sleep(250);
  }
  return served;
}

const key = makeKey();
// Plain bodies: the test compares each body with its Content-Length (fetch would gunzip a gzip one).
const headers = { 'X-Service-Key': key, 'Accept-Encoding': 'identity' };
/** Price row ids clients read from the markets delta, and the heads (delta_last_id) snapshots gave them. */
const seenRows = new Set<number>();
const seenHeads = new Set<number>();
/** The cursor the delta follower started from. */
let firstCursor = 0;

test('SIGTERM under load: every request is answered whole or refused cleanly, exit 0, the log checkpointed', async (t) => {
  // Basketball and soccer are load enough, and fill in a fraction of every sport's time.
  const s = await serve(t, ['--sports', '4,11']);
  const snapshot = `${s.url}/api/v2/sports/4/events/${today()}`;
  firstCursor = Number(
    ((await (await fetch(snapshot, { headers })).json()) as { meta: { delta_last_id: string } }).meta.delta_last_id,
  );
  // The log's first cursor: a short log (after midnight UTC, two sports) holds fewer rows than the
  // heavy readers reach back, and a cursor before a log's first id is an earlier log's (400).
  const first = (await (await fetch(`${s.url}/api/v2/markets/delta?last_id=0&limit=1`, { headers })).json()) as {
    deltas: { id: number }[];
  };
  const logStart = first.deltas[0]!.id - 1;
  let signalledAt = Number.POSITIVE_INFINITY;
  const outcome = { answered: 0, refused: 0, finishedAfterSignal: 0, byStatus: new Map<number, number>() };
  const cut: string[] = [];

  /** One request: a complete answer, or no answer at all; a body that stops short is a failure. */
  const request = async (url: string): Promise<unknown> => {
    const started = Date.now();
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    } catch {
      outcome.refused++;
      return undefined;
    }
    let body: Buffer;
    try {
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      cut.push(`${url}: ${res.status}, body cut off: ${String((err as Error).cause ?? err)}`);
      return undefined;
    }
    const length = res.headers.get('content-length');
    if (length !== null && Number(length) !== body.length) cut.push(`${url}: ${body.length} of ${length} bytes`);
    outcome.answered++;
    outcome.byStatus.set(res.status, (outcome.byStatus.get(res.status) ?? 0) + 1);
    if (started < signalledAt && Date.now() >= signalledAt) outcome.finishedAfterSignal++;
    return JSON.parse(body.toString());
  };

  let exited = false;
  void s.exited.then(() => (exited = true));
  let cursor = firstCursor;
  const follow = async () => {
    // Follows the markets delta from the snapshot's cursor, as a client of the feed does.
    while (!exited) {
      const page = (await request(`${s.url}/api/v2/markets/delta?last_id=${cursor}&limit=5000`)) as
        { meta?: { delta_last_id: string }; deltas?: { id: number }[] } | undefined;
      if (page?.deltas) {
        for (const row of page.deltas) seenRows.add(row.id);
        cursor = Number(page.meta!.delta_last_id);
      }
    }
  };
  const heavy = async (i: number) => {
    // Two-megabyte pages from behind the head, and snapshots: answers that take a while to send.
    while (!exited) {
      const url =
        i % 2 === 0
          ? `${s.url}/api/v2/markets/delta?last_id=${Math.max(logStart, cursor - 20_000)}&limit=5000`
          : snapshot;
      const answer = (await request(url)) as { meta?: { delta_last_id: string } } | undefined;
      if (answer?.meta && url === snapshot) seenHeads.add(Number(answer.meta.delta_last_id));
    }
  };
  const load = Promise.all([follow(), ...Array.from({ length: 6 }, (_, i) => heavy(i))]);
  await sleep(3000);
  signalledAt = Date.now();
  s.child.kill('SIGTERM');
  const end = await s.exited;
  await load;

  t.diagnostic(
    `answered ${outcome.answered} (${[...outcome.byStatus].map(([c, n]) => `${n} x ${c}`).join(', ')}), ` +
      `not answered ${outcome.refused}, finished after the signal ${outcome.finishedAfterSignal}, ` +
      `closed ${end.at - signalledAt} ms after it`,
  );
  assert.deepEqual(cut, [], 'no answer was cut off');
  assert.equal(end.code, 0, s.output());
  assert.ok(end.at - signalledAt < 15_000, `closed in ${end.at - signalledAt} ms`);
  assert.ok(outcome.answered > 20, `answered ${outcome.answered}`);
  assert.ok(outcome.finishedAfterSignal > 0, 'requests in flight at the signal were finished');
  assert.ok(
    [...outcome.byStatus.keys()].every((c) => c === 200 || c === 503),
    [...outcome.byStatus].join(' '),
  );
  assert.ok(seenRows.size > 0 && seenHeads.size > 0);
  assert.match(s.output(), /received SIGTERM, closing/);
  // The write-ahead log was moved into the database file and emptied.
  const wal = join(dataDir, 'oddsbase.db-wal');
  assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL is checkpointed');
});

/**
 * A slow client: its request's headers never end, so the request stays in flight (HTTP's idle
 * connections are closed at once on shutdown; this one is not idle) until the server gives up on it.
 */
function stuckClient(base: string): Promise<ReturnType<typeof connect>> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET /api/v2/sports HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${key}\r\n`);
      resolve(socket);
    });
    socket.on('error', () => {});
  });
}

test('after the restart every change id the clients saw is there; a slow client delays a shutdown by the grace at most', async (t) => {
  const s = await serve(t, ['--no-simulator'], { SHUTDOWN_GRACE_MS: '1500' });
  const found = new Set<number>();
  let cursor = firstCursor;
  const maxSeen = Math.max(...seenRows, ...seenHeads);
  while (cursor < maxSeen) {
    const page = (await (
      await fetch(`${s.url}/api/v2/markets/delta?last_id=${cursor}&limit=5000`, { headers })
    ).json()) as {
      meta: { delta_last_id: string; has_more: boolean };
      deltas: { id: number }[];
    };
    for (const row of page.deltas) found.add(row.id);
    cursor = Number(page.meta.delta_last_id);
    if (!page.meta.has_more) break;
  }
  assert.deepEqual(
    [...seenRows].filter((id) => !found.has(id)),
    [],
    'every price row a client read is there',
  );
  const head = Number(
    (
      (await (await fetch(`${s.url}/api/v2/sports/4/events/${today()}`, { headers })).json()) as {
        meta: { delta_last_id: string };
      }
    ).meta.delta_last_id,
  );
  assert.ok(head >= maxSeen, `head ${head}, seen up to ${maxSeen}`);

  // A slow client holds its request open: the shutdown waits SHUTDOWN_GRACE_MS for it, no more.
  const socket = await stuckClient(s.url);
  t.after(() => socket.destroy());
  await sleep(500);
  const signalledAt = Date.now();
  s.child.kill('SIGTERM');
  const end = await s.exited;
  socket.destroy();
  assert.equal(end.code, 0, s.output());
  const took = end.at - signalledAt;
  assert.ok(took >= 1400 && took < 10_000, `closed in ${took} ms with a stuck client and a 1.5 s grace`);

  // Snapshot heads may be score or event rows, which the markets delta does not carry: the store has them.
  const db = openSqlite(dataDir);
  const has = db.prepare('SELECT 1 FROM changes WHERE id = ?');
  assert.deepEqual(
    [...seenHeads].filter((id) => has.get(id) === undefined),
    [],
  );
  db.close();
});

test('a second signal exits at once; --log-pretty writes lines for a terminal', async (t) => {
  const s = await serve(t, ['--no-simulator', '--log-pretty'], { SHUTDOWN_GRACE_MS: '60000' });
  // The pretty lines are written asynchronously, through a stream of their own: the line that
  // fastify listens may reach the pipe after the server has answered /readyz.
  for (let i = 0; !/INFO.*Server listening at/.test(s.output()); i++) {
    assert.ok(i < 100, `no "Server listening at" line within 10 s:\n${s.output()}`);
    await sleep(100);
  }
  assert.doesNotMatch(s.output(), /^\{"level"/m);
  const socket = await stuckClient(s.url);
  t.after(() => socket.destroy());
  await sleep(500);
  s.child.kill('SIGTERM');
  await sleep(1000);
  assert.equal(s.child.exitCode, null, 'the first signal waits for the request in flight');
  const again = Date.now();
  s.child.kill('SIGTERM');
  const end = await s.exited;
  socket.destroy();
  assert.equal(end.code, 143, s.output());
  assert.ok(end.at - again < 3000, `exited ${end.at - again} ms after the second signal`);
  assert.match(s.output(), /received SIGTERM again, exiting now/);
});
