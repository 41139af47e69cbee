import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { rosterOf } from '../../src/catalog/rosters/index.ts';
import { seasonYear } from '../../src/catalog/seasons.ts';
import { sportProfile } from '../../src/catalog/sports.ts';
import { batch, creditPlay, nbaEvent, nbaPrices, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PLAIN } from '../../src/perf/switch.ts';

/**
 * The fast lane answers repeated polls before routing (src/http/fast-lane.ts). What it sends must
 * be what the router sends, under every rule the router applies: these tests ask each URL twice,
 * once through the router and once through the lane, and compare.
 */

const GAME = '5'.repeat(32);
/** Final, of yesterday (off today's events snapshot), this season: a Free evaluation may read its box. */
const FINAL = '7'.repeat(32);
const BOS = 2002;
const D = today();
const EVENTS = `/api/v2/sports/4/events/${D}`;
const SEASON = `/api/v2/teams/${BOS}/stats`;
const BOX = `/api/v2/events/${GAME}/players/stats`;
const FINAL_BOX = `/api/v2/events/${FINAL}/players/stats`;
const P1 = rosterOf(BOS)![0]!;

/** The key cache time of the revocation test's own server. */
const AUTH_CACHE_MS = 300;

/** Under the plain switch the lane is off: the router, its twin, answers every request. */
const LANE_OFF = PLAIN && 'the fast lane is off under ODDSBASE_PLAIN=1';

let s: TestServer;
let ultra: string;

const lane = () => s.server.app.fastLane!.count;

async function get(path: string, key: string) {
  const res = await fetch(s.url + path, { headers: { 'X-Service-Key': key } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Headers that differ between two answers by design: the clock, the running counts. */
const MOVING = new Set([
  'date',
  'x-datapoints-used',
  'x-datapoints-remaining',
  'x-datapoints-monthly-used',
  'x-datapoints-monthly-remaining',
]);

/** Every header but the moving ones. */
function stable(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of headers) if (!MOVING.has(k)) out[k] = v;
  return out;
}

/** Waits for the next second of the clock: Free allows one request a second (spec: Rate limit tiers). */
const nextSecond = () => new Promise((r) => setTimeout(r, 1001 - (Date.now() % 1000)));

/**
 * The events snapshots keep an answer from the second time it is asked (src/http/snapshot-cache.ts),
 * so the lane can take the third; the other laned routes keep it from the first.
 */
const routedTimes = (path: string) => (/\/events\/\d{4}-\d\d-\d\d$/.test(path) ? 2 : 1);

/** Asks `path` until the lane answers it; returns the router's last answer and the lane's. */
async function twice(path: string, key: string) {
  const before = lane();
  let routed!: Awaited<ReturnType<typeof get>>;
  for (let i = routedTimes(path); i > 0; i--) {
    await nextSecond();
    routed = await get(path, key);
  }
  await nextSecond();
  const laned = await get(path, key);
  return { routed, laned, fromLane: lane() - before };
}

/** Asks `path` until the lane answers (see `twice`) and checks that it answered as the router did. */
async function laneAnswersAsRouter(path: string, key: string) {
  const { routed, laned, fromLane } = await twice(path, key);
  assert.equal(routed.status, 200);
  assert.equal(fromLane, 1, path);
  assert.equal(laned.text, routed.text);
  assert.deepEqual(stable(laned.headers), stable(routed.headers));
  return { routed, laned };
}

before(async () => {
  // The lane reads the authenticator's cache only; a key whose entry expired goes through the router
  // once (and is cached again). A long cache keeps these comparisons about the lane alone.
  s = await startTestServer({ limits: { authCacheMs: 600_000 } });
  ultra = await s.newKey('ultra');
  // Long enough ago that every delayed plan sees it.
  const past = new Date(Date.now() - 3_600_000).toISOString();
  const season = seasonYear(sportProfile(4)!, Date.now());
  const thisSeason = (e: ReturnType<typeof nbaEvent>) => ({ ...e, schedule: { ...e.schedule, season_year: season } });
  const yesterday = new Date(Date.parse(D) - 86_400_000).toISOString().slice(0, 10);
  await s.server.ledger.apply(
    batch(past, [
      { kind: 'event', event: thisSeason(nbaEvent(GAME, D, 23)) },
      ...nbaPrices(GAME),
      { kind: 'score', event_id: GAME, score: score(GAME, 'STATUS_IN_PROGRESS', 0, 0) },
      { kind: 'play', event_id: GAME, play: creditPlay(BOS, P1.player_id, 'points', 2, { away: 2, home: 0 }) },
      { kind: 'event', event: thisSeason(nbaEvent(FINAL, yesterday, 23)) },
      { kind: 'score', event_id: FINAL, score: score(FINAL, 'STATUS_IN_PROGRESS', 0, 0) },
      { kind: 'play', event_id: FINAL, play: creditPlay(BOS, P1.player_id, 'points', 3, { away: 3, home: 0 }) },
      { kind: 'score', event_id: FINAL, score: score(FINAL, 'STATUS_FINAL', 3, 0) },
    ]),
  );
});

after(() => s.close());

describe('fast lane', { skip: LANE_OFF }, () => {
  test("a repeated events poll is answered by the lane with the router's bytes and headers, metered alike", async () => {
    const { routed, laned, fromLane } = await twice(EVENTS, ultra);
    assert.equal(fromLane, 1);
    assert.equal(routed.status, 200);
    assert.equal(laned.status, 200);
    assert.equal(laned.text, routed.text);
    assert.deepEqual(stable(laned.headers), stable(routed.headers));
    const points = Number(routed.headers.get('x-datapoints'));
    assert.ok(points > 2);
    assert.equal(
      Number(laned.headers.get('x-datapoints-used')),
      Number(routed.headers.get('x-datapoints-used')) + points,
    );
  });

  test('a commit makes the kept answer stale: the router answers the new state, then the lane again', async () => {
    await get(EVENTS, ultra);
    const before = lane();
    await s.server.ledger.apply(
      batch(new Date(Date.now() - 3_600_000).toISOString(), [
        { kind: 'score', event_id: GAME, score: score(GAME, 'STATUS_IN_PROGRESS', 7, 3) },
      ]),
    );
    const fresh = await get(EVENTS, ultra);
    assert.equal(lane(), before, 'the stale answer went to the router');
    assert.equal(JSON.parse(fresh.text).events[0].score.score_away, 7);
    const again = await get(EVENTS, ultra);
    assert.equal(lane(), before + 1);
    assert.equal(again.text, fresh.text);
  });

  test('each plan scope has its own answers: a Free key never gets an Ultra body', async () => {
    await get(EVENTS, ultra);
    await get(EVENTS, ultra);
    const free = await s.newKey('free');
    const { routed, laned, fromLane } = await twice(EVENTS, free);
    assert.equal(fromLane, 1);
    assert.equal(laned.text, routed.text);
    const books = new Set<number>();
    for (const m of JSON.parse(laned.text).events[0].markets)
      for (const p of m.participants)
        for (const l of p.lines) for (const id of Object.keys(l.prices)) books.add(Number(id));
    const allowed = (laned.headers.get('x-bookmakers') ?? '').split(',').map(Number);
    assert.ok(books.size > 0);
    for (const b of books) assert.ok(allowed.includes(b), `book ${b} is outside the Free plan`);
    assert.equal(laned.headers.get('x-data-delay-seconds'), '300');
  });

  test("the burst ceiling holds on the lane: past it, 429 Rate limit exceeded with Retry-After and the plan's headers", async () => {
    const key = await s.newKey('ultra');
    await get(EVENTS, key);
    const answers = await Promise.all(Array.from({ length: 25 }, () => get(EVENTS, key)));
    const refused = answers.filter((a) => a.status === 429);
    // Ultra: 10 requests a second (spec: Rate limit tiers); the 26 requests span at most two seconds.
    assert.ok(refused.length >= 26 - 20, `${refused.length} refused`);
    const r = refused[0]!;
    assert.equal(JSON.parse(r.text).error, 'Rate limit exceeded');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    assert.equal(r.headers.get('x-tier'), 'Ultra');
    assert.equal(r.headers.get('x-datapoints'), null, 'a refusal consumes no data points');
  });

  test('the history window holds on the lane for a plan whose window the date leaves', async () => {
    const free = await s.newKey('free');
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    const path = `/api/v2/sports/4/events/${old}`;
    const before = lane();
    await nextSecond();
    const first = await get(path, free);
    await nextSecond();
    const second = await get(path, free);
    assert.equal(first.status, 403);
    assert.equal(second.status, 403);
    assert.equal(lane(), before);
  });

  test('only a key in the header is looked up: a key in the query goes through the router', async () => {
    const path = `${EVENTS}?key=${ultra}`;
    await fetch(s.url + path);
    const before = lane();
    const res = await fetch(s.url + path);
    assert.equal(res.status, 200);
    assert.equal(lane(), before);
  });

  test("an unknown key, a revoked key and a V1-only key are the router's to refuse", async () => {
    await get(EVENTS, ultra);
    const before = lane();
    assert.equal((await get(EVENTS, 'ob_nope')).status, 401);
    const v1only = await s.newKey('ultra', { v1: true, v2: false });
    assert.equal((await get(EVENTS, v1only)).status, 403);
    assert.equal(lane(), before);
  });

  test('a season aggregate is laned only for callers the stats-access policy lets read it', async () => {
    const legacy = await s.newKey('starter', { createdAt: new Date('2026-06-01T00:00:00Z') });
    await laneAnswersAsRouter(SEASON, legacy);
    // Same tier and scope, created after the policy's cutoff: season stats need Pro (spec: stats access).
    // Asked twice: a key's first request goes through the router (the lane knows cached keys only).
    const recent = await s.newKey('starter');
    const before = lane();
    for (let i = 0; i < 2; i++) {
      await nextSecond();
      const refused = await get(SEASON, recent);
      assert.equal(refused.status, 403);
      assert.equal(JSON.parse(refused.text).feature, 'season_stats');
    }
    assert.equal(lane(), before);
  });

  test('V1 events polls take the lane too, for keys with a V1 subscription only', async () => {
    const v1 = await s.newKey('ultra', { v1: true });
    const path = `/api/v1/sports/4/events/${D}`;
    await laneAnswersAsRouter(path, v1);
    // Same tier and scope, no V1 subscription: the router refuses it, in V1's error shape.
    const v2only = await s.newKey('ultra');
    const before = lane();
    const refused = await get(path, v2only);
    assert.equal(refused.status, 403);
    assert.ok(JSON.parse(refused.text).error);
    assert.equal(lane(), before);
  });

  test("a box score is laned with the router's bytes and headers, the team box and the player box", async () => {
    for (const path of [`/api/v2/events/${GAME}/stats`, BOX]) {
      const { routed, laned } = await laneAnswersAsRouter(path, ultra);
      const points = Number(routed.headers.get('x-datapoints'));
      assert.ok(points > 0);
      assert.equal(
        Number(laned.headers.get('x-datapoints-used')),
        Number(routed.headers.get('x-datapoints-used')) + points,
      );
    }
  });

  test("a Free key's box score is laned only while the stats-access policy lets it read it", async () => {
    // Created now: the Free evaluation reads current-season completed box scores (spec: stats access).
    const free = await s.newKey('free');
    const { routed, laned } = await laneAnswersAsRouter(FINAL_BOX, free);
    assert.equal(laned.headers.get('x-data-delay-seconds'), '300');
    const points = Number(routed.headers.get('x-datapoints'));
    const monthly = (h: Headers) => Number(h.get('x-datapoints-monthly-used'));
    assert.equal(monthly(laned.headers), monthly(routed.headers) + points);
    assert.equal(JSON.parse(laned.text)[0].meta.complete, true);
    // Same tier and scope, its evaluation over: the kept body is not for it. Asked twice: the key's
    // first request goes through the router (the lane knows cached keys only), the second could be laned.
    const over = await s.newKey('free', { createdAt: new Date(Date.now() - 8 * 86_400_000) });
    const before = lane();
    for (let i = 0; i < 2; i++) {
      await nextSecond();
      const refused = await get(FINAL_BOX, over);
      assert.equal(refused.status, 403);
      assert.equal(JSON.parse(refused.text).feature, 'completed_box_scores');
    }
    // And live game stats need Ultra: a Free evaluation is refused the game in progress.
    await nextSecond();
    const live = await get(BOX, free);
    assert.equal(live.status, 403);
    assert.equal(JSON.parse(live.text).feature, 'live_game_stats');
    assert.equal(lane(), before);
  });

  test('a stat row makes the kept box stale: the router answers the new box, then the lane again', async () => {
    await get(BOX, ultra);
    const old = await get(BOX, ultra);
    const before = lane();
    await s.server.ledger.apply(
      batch(new Date(Date.now() - 3_600_000).toISOString(), [
        { kind: 'play', event_id: GAME, play: creditPlay(BOS, P1.player_id, 'points', 2, { away: 4, home: 0 }) },
      ]),
    );
    const fresh = await get(BOX, ultra);
    assert.equal(lane(), before, 'the stale box went to the router');
    assert.notEqual(fresh.text, old.text);
    const again = await get(BOX, ultra);
    assert.equal(lane(), before + 1);
    assert.equal(again.text, fresh.text);
  });

  test('a delayed plan never gets the box of a stat row its view does not show yet', async () => {
    // Legacy: live game stats on every plan; a Free key's view is 300 s behind.
    const free = await s.newKey('free', { createdAt: new Date('2026-06-01T00:00:00Z') });
    const { laned: shown, fromLane } = await twice(BOX, free);
    assert.equal(fromLane, 1);
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [
        { kind: 'play', event_id: GAME, play: creditPlay(BOS, P1.player_id, 'points', 3, { away: 7, home: 0 }) },
      ]),
    );
    const real = await get(BOX, ultra);
    const realAgain = await get(BOX, ultra);
    assert.equal(realAgain.text, real.text);
    assert.notEqual(real.text, shown.text);
    const { routed, laned } = await twice(BOX, free);
    assert.equal(routed.text, shown.text);
    assert.equal(laned.text, shown.text);
  });

  test('a box score whose event is archived is answered by the router, from the store', async () => {
    const { laned, fromLane } = await twice(FINAL_BOX, ultra);
    assert.equal(fromLane, 1);
    // Archiving takes the final game off the board without a commit: no view head moves.
    assert.equal(await s.server.ledger.archiveFinished(Date.now() + 1, 0), 1);
    const before = lane();
    const archived = await get(FINAL_BOX, ultra);
    assert.equal(archived.status, 200);
    assert.equal(lane(), before);
    assert.equal(archived.text, laned.text);
  });

  test("the request metrics count the lane's answers under the route pattern", async () => {
    const scrape = async () => {
      const text = await s.server.services.metrics.text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('oddsbase_http_request_duration_seconds_count{') &&
            l.includes('route="/api/v2/sports/:sportID/events/:date"') &&
            l.includes('status_code="200"'),
        );
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    await get(EVENTS, ultra);
    const before = await scrape();
    const laned = lane();
    await get(EVENTS, ultra);
    assert.equal(lane(), laned + 1);
    assert.equal(await scrape(), before + 1);
  });

  test("the server has one 'request' listener, which counts the lane's requests and the router's", async () => {
    // A second listener would make node copy the listener list on every request.
    assert.equal(s.server.app.server.listenerCount('request'), 1);
    const begun = s.server.app.requestsBegun;
    const laned = lane();
    // The snapshot is kept from its second ask: the third at the latest is the lane's.
    for (let i = 0; i < 3; i++) await get(EVENTS, ultra);
    assert.ok(lane() > laned);
    await get('/api/v2/sports', ultra);
    assert.equal(s.server.app.requestsBegun, begun + 4);
  });
});

test(
  'a key revoked while its polls take the lane stops working within the key cache time, as on the router',
  { skip: LANE_OFF },
  async () => {
    // A short key cache (2 s by default) keeps the wait short.
    const own = await startTestServer({ limits: { authCacheMs: AUTH_CACHE_MS } });
    try {
      const past = new Date(Date.now() - 3_600_000).toISOString();
      await own.server.ledger.apply(batch(past, [{ kind: 'event', event: nbaEvent(GAME, D, 23) }, ...nbaPrices(GAME)]));
      const key = await own.newKey('ultra');
      const ask = () => fetch(own.url + EVENTS, { headers: { 'X-Service-Key': key } }).then((r) => r.status);
      const laned = own.server.app.fastLane!.count;
      assert.equal(await ask(), 200);
      assert.equal(await ask(), 200);
      assert.equal(await ask(), 200);
      assert.equal(own.server.app.fastLane!.count, laned + 1);
      assert.equal(await own.server.keys.revoke({ prefix: key.slice(0, 10) }, new Date().toISOString()), 1);
      await new Promise((r) => setTimeout(r, AUTH_CACHE_MS + 100));
      assert.equal(await ask(), 401);
      assert.equal(await ask(), 401);
    } finally {
      await own.close();
    }
  },
);

/** How long an answer may take to arrive whole before the test fails instead of waiting on. */
const RAW_TIMEOUT_MS = 10_000;

/**
 * An answer as it comes off the wire: its status, raw body bytes (still compressed) and headers.
 * An answer that never completes (a framing the client cannot end, say a length longer than the
 * body) fails the test after RAW_TIMEOUT_MS rather than hanging the file.
 */
async function raw(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: Buffer; headers: Record<string, string> }>((resolve, reject) => {
    const req = httpGet(s.url + path, { headers, timeout: RAW_TIMEOUT_MS }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete)
          reject(new Error(`${path}: the answer was cut off after ${Buffer.concat(parts).length} bytes`));
      });
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (!MOVING.has(k) && typeof v === 'string') out[k] = v;
        resolve({ status: res.statusCode!, body: Buffer.concat(parts), headers: out });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${path}: no whole answer within ${RAW_TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

/**
 * The lane's answer to `path` with these headers (asked until the lane takes it), and the router's
 * to the same request with the key in the query instead, which the lane never takes.
 */
async function rawTwice(path: string, headers: Record<string, string>) {
  let laned: Awaited<ReturnType<typeof raw>> | undefined;
  for (let i = 0; i < 4 && !laned; i++) {
    const before = lane();
    const r = await raw(path, headers);
    if (lane() !== before) laned = r;
  }
  if (!laned) throw new Error(`the lane never answered ${path}`);
  const { 'X-Service-Key': k, ...rest } = headers;
  const before = lane();
  const routed = await raw(`${path}${path.includes('?') ? '&' : '?'}key=${k}`, rest);
  assert.equal(lane(), before, 'a key in the query takes the router');
  return { routed, laned };
}

describe('compressed and conditional answers', () => {
  let key: string;
  let v1: string;
  before(async () => {
    const custom = JSON.stringify({ burstPerSecond: 1_000_000 });
    // Enterprise: custom limits, so that no burst ceiling interferes.
    key = await s.newKey('enterprise', { custom });
    v1 = await s.newKey('enterprise', { v1: true, custom });
  });
  const paths = () => [
    [EVENTS, key],
    [`/api/v1/sports/4/events/${D}`, v1],
    [SEASON, key],
    [BOX, key],
    [`/api/v2/events/${GAME}/stats`, key],
  ];

  test(
    'gzip when asked: the lane sends the router’s kept gzip bytes and headers, Vary and an ETag',
    { skip: LANE_OFF },
    async () => {
      for (const [path, k] of paths()) {
        const plain = await rawTwice(path!, { 'X-Service-Key': k!, 'Accept-Encoding': 'identity' });
        assert.equal(plain.laned.headers['content-encoding'], undefined, path);
        assert.deepEqual(plain.laned.headers, plain.routed.headers, path);
        assert.ok(plain.laned.body.equals(plain.routed.body), path);
        const zipped = await rawTwice(path!, { 'X-Service-Key': k!, 'Accept-Encoding': 'gzip, deflate, br' });
        assert.deepEqual(zipped.laned.headers, zipped.routed.headers, path);
        assert.ok(zipped.laned.body.equals(zipped.routed.body), path);
        if (plain.laned.body.length >= 1024) {
          assert.equal(zipped.laned.headers['content-encoding'], 'gzip', path);
          assert.ok(zipped.laned.body.length < plain.laned.body.length, path);
          // What the answer shows; a kept gzip may carry an earlier envelope meta (encoding.ts keepBody).
          const shown = (b: Buffer) => {
            const { meta: _meta, ...rest } = JSON.parse(b.toString());
            return rest;
          };
          assert.deepEqual(shown(gunzipSync(zipped.laned.body)), shown(plain.laned.body), path);
        } else assert.ok(zipped.laned.body.equals(plain.laned.body), path);
        assert.equal(zipped.laned.headers['content-length'], String(zipped.laned.body.length));
        assert.equal(zipped.laned.headers.vary, 'Accept-Encoding');
        assert.match(zipped.laned.headers.etag!, /^W\/"[\w-]+"$/);
        // One representation: the same ETag whatever the encoding.
        assert.equal(zipped.laned.headers.etag, plain.laned.headers.etag);
        // q=0 refuses gzip, as does a * at q=0 that names nothing else.
        for (const refusal of ['gzip;q=0', 'gzip;q=0, identity', '*;q=0, identity']) {
          const r = await raw(path!, { 'X-Service-Key': k!, 'Accept-Encoding': refusal });
          assert.equal(r.headers['content-encoding'], undefined, `${path} ${refusal}`);
          assert.ok(r.body.equals(plain.laned.body));
        }
      }
      // The events snapshot of the fixture is large enough to be compressed.
      const events = await raw(EVENTS, { 'X-Service-Key': key, 'Accept-Encoding': 'gzip' });
      assert.equal(events.headers['content-encoding'], 'gzip');
    },
  );

  test(
    'If-None-Match with the ETag: 304, no body, no data points, the same headers from the router and the lane',
    { skip: LANE_OFF },
    async () => {
      for (const [path, k] of paths()) {
        const first = await raw(path!, { 'X-Service-Key': k!, 'Accept-Encoding': 'gzip' });
        const conditional = { 'X-Service-Key': k!, 'Accept-Encoding': 'gzip', 'If-None-Match': first.headers.etag! };
        const { routed, laned } = await rawTwice(path!, conditional);
        for (const r of [routed, laned]) {
          assert.equal(r.status, 304, path);
          assert.equal(r.body.length, 0);
          assert.equal(r.headers.etag, first.headers.etag);
          assert.equal(r.headers['x-datapoints'], '0', 'a 304 costs no data points');
        }
        assert.deepEqual(laned.headers, routed.headers, path);
        const other = await raw(path!, { ...conditional, 'If-None-Match': 'W/"other"' });
        assert.equal(other.status, 200);
      }
    },
  );

  test('the ETag follows what the caller sees: a commit elsewhere keeps it, a change of the event moves it', async () => {
    const h = { 'X-Service-Key': key, 'Accept-Encoding': 'gzip' };
    const before = await raw(EVENTS, h);
    const at = new Date(Date.now() - 3_600_000).toISOString();
    // Another sport's event: the head (and so meta.delta_last_id) moves, the NBA events do not.
    await s.server.ledger.apply(
      batch(at, [{ kind: 'event', event: { ...nbaEvent('6'.repeat(32), D, 22), sport_id: 6 } }]),
    );
    const elsewhere = await raw(EVENTS, h);
    const plain = await raw(EVENTS, { ...h, 'Accept-Encoding': 'identity' });
    const head = (r: Buffer) => JSON.parse(r.toString()).meta.delta_last_id;
    assert.notEqual(head(plain.body), head(gunzipSync(before.body)), 'the plain answer shows the new head');
    assert.equal(elsewhere.headers.etag, before.headers.etag);
    assert.equal(plain.headers.etag, before.headers.etag);
    // The same representation: the refill reused the kept gzip bytes rather than compressing again
    // (the response cache's; under the plain switch nothing is kept and each answer is compressed anew).
    if (!PLAIN) assert.ok(elsewhere.body.equals(before.body));
    assert.equal((await raw(EVENTS, { ...h, 'If-None-Match': before.headers.etag! })).status, 304);
    await s.server.ledger.apply(
      batch(at, [{ kind: 'score', event_id: GAME, score: score(GAME, 'STATUS_IN_PROGRESS', 9, 3) }]),
    );
    const changed = await raw(EVENTS, { ...h, 'If-None-Match': before.headers.etag! });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, before.headers.etag);
  });

  test('answers that are not kept are compressed per request from 1 KB on; small ones and errors go out plain', async () => {
    const h = { 'X-Service-Key': key };
    for (const path of [
      '/api/v2/markets/delta?last_id=0',
      `/api/v2/events/${GAME}/markets/history`,
      `/api/v2/events/${GAME}`,
    ]) {
      const plain = await raw(path, { ...h, 'Accept-Encoding': 'identity' });
      const zipped = await raw(path, { ...h, 'Accept-Encoding': 'gzip' });
      assert.equal(plain.status, 200, path);
      assert.ok(plain.body.length >= 1024, `${path}: ${plain.body.length} bytes`);
      assert.equal(zipped.headers['content-encoding'], 'gzip', path);
      assert.equal(zipped.headers.vary, 'Accept-Encoding');
      assert.deepEqual(JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString()), path);
    }
    const small = await raw('/api/v2/sports/4/futures', { ...h, 'Accept-Encoding': 'gzip' });
    assert.ok(small.body.length < 1024);
    assert.equal(small.headers['content-encoding'], undefined);
    const missing = await raw('/api/v2/events/nope', { ...h, 'Accept-Encoding': 'gzip' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-encoding'], undefined);
  });
});
