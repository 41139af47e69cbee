import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordLog, replayIntoStore } from '../../src/cli/recording.ts';
import { resolveServeConfig } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The acceptance test of record and replay: a simulated day (hockey, history filled, live games
 * at 60x) recorded, replayed into empty stores, gives byte-identical REST answers at the same
 * position: events snapshots of several dates, markets delta pages, event headers, openers and
 * closing lines, box scores, plays and futures boards. The replayed store is read after a restart
 * (what the replay committed) and, through `serve --feed replay`, from the board the replay built.
 */

const DAY = 86_400_000;
const work = mkdtempSync(join(tmpdir(), 'oddsbase-replay-'));
const plain = join(work, 'day.ndjson');
const gzip = join(work, 'day.ndjson.gz');
let original: TestServer;
let replayed: TestServer;
let fed: TestServer;
/** One clock for every server that answers: answers that depend on the time (the date gates) agree. */
let readAt = 0;

before(async () => {
  const source = await startTestServer({ simulator: true, speed: 60, seed: 11, sports: [6] });
  while (source.server.services.readiness.history !== 'complete') await sleep(200);
  // A few live steps on top of the fill: live games with plays, box scores and moving prices.
  await sleep(1500);
  await source.close({ keepData: true });
  const target = { dataDir: source.dataDir };
  await recordLog(target, plain, 0);
  await recordLog(target, gzip, 0);
  // Past the longest delay (5 min) after the last commit: a restart loads the stored event records
  // and latest prices rather than replaying the recent rows, so those are compared too.
  readAt = Date.now() + 15 * 60_000;
  const now = () => readAt;
  const into = mkdtempSync(join(tmpdir(), 'oddsbase-replay-b-'));
  const config = resolveServeConfig({ dataDir: into, simulator: false, logLevel: 'silent' }, {});
  const result = await replayIntoStore(config, gzip, { speed: 0, append: false, now });
  assert.equal(result.complete, true);
  original = await startTestServer({ dataDir: source.dataDir, now });
  replayed = await startTestServer({ dataDir: into, now });
  fed = await startTestServer({ feed: 'replay', replayFile: plain, speed: 'max', now });
  await fed.server.replay!.done;
});

after(async () => {
  await Promise.all([original?.close(), replayed?.close(), fed?.close()]);
  rmSync(work, { recursive: true, force: true });
});

/** The raw body of `path` from server `s`, which must answer 200. */
async function raw(s: TestServer, path: string): Promise<string> {
  const res = await fetch(s.url + path, { headers: { 'X-Service-Key': s.key } });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text.slice(0, 300)}`);
  return text;
}

/** The same bytes from the original store and from both replays. */
async function same(path: string): Promise<string> {
  const [a, b, c] = await Promise.all([raw(original, path), raw(replayed, path), raw(fed, path)]);
  assert.ok(a === b, `${path}: the replayed store answers differently\n${a.slice(0, 400)}\n${b.slice(0, 400)}`);
  assert.ok(a === c, `${path}: the replay feed's board answers differently\n${a.slice(0, 400)}\n${c.slice(0, 400)}`);
  return a;
}

test('the replayed log is the recorded one: same head, same epoch', async () => {
  assert.equal(replayed.server.ledger.position.id, original.server.ledger.position.id);
  assert.equal(replayed.server.ledger.position.epoch, original.server.ledger.position.epoch);
  assert.deepEqual(fed.server.ledger.position, original.server.ledger.position);
});

test('events snapshots of several dates are byte-identical', async () => {
  let events = 0;
  for (const back of [-1, 0, 1, 2]) {
    const date = new Date(readAt - back * DAY).toISOString().slice(0, 10);
    events += JSON.parse(await same(`/api/v2/sports/6/events/${date}`)).events.length;
    await same(`/api/v2/sports/6/events/${date}?include=all_periods`);
  }
  assert.ok(events > 10, `a simulated day has events (${events})`);
});

test('markets delta pages are byte-identical', async () => {
  let cursor = 0;
  let rows = 0;
  for (let page = 0; page < 4; page++) {
    const body = JSON.parse(await same(`/api/v2/markets/delta?last_id=${cursor}&limit=5000`));
    rows += body.deltas.length;
    if (!body.meta.has_more) break;
    cursor = body.meta.delta_last_id;
  }
  assert.ok(rows > 1000, `the delta pages hold the day's prices (${rows})`);
  await same('/api/v2/markets/delta?last_id=0&sport_id=6&affiliate_ids=1,2&limit=1000');
});

test('openers, closing lines, box scores and plays of played games are byte-identical', async () => {
  const day = new Date(readAt - DAY).toISOString().slice(0, 10);
  const today = new Date(readAt).toISOString().slice(0, 10);
  const ids: string[] = [];
  for (const date of [day, today]) {
    const body = JSON.parse(await raw(original, `/api/v2/sports/6/events/${date}`));
    for (const e of body.events) if (e.score?.event_status !== 'STATUS_SCHEDULED') ids.push(e.event_id);
  }
  assert.ok(ids.length > 0, 'some games have started');
  for (const id of ids.slice(0, 6)) {
    await same(`/api/v2/events/${id}`);
    await same(`/api/v2/events/${id}/openers`);
    await same(`/api/v2/events/${id}/closing`);
    await same(`/api/v2/events/${id}/stats`);
    await same(`/api/v2/events/${id}/players/stats`);
    await same(`/api/v2/events/${id}/plays`);
  }
});

test('futures boards are byte-identical', async () => {
  const body = JSON.parse(await same('/api/v2/sports/6/futures?include_settled=true'));
  assert.ok(JSON.stringify(body).length > 100);
});
