import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OddsbaseClient } from '../../packages/client/src/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The upstream mirror against a second oddsbase on loopback: a simulator server is the upstream,
 * and a server with `--feed upstream` mirrors it. Once the upstream stops moving and the mirror has
 * caught up, every answer of the mirrored days equals the upstream's, ids included.
 */

const SPORT = 4;
const DAY_MS = 86_400_000;
let upstream: TestServer;
let mirror: TestServer;

before(async () => {
  upstream = await startTestServer({ simulator: true, sports: [SPORT], seed: 5 });
  // The mirror starts on an upstream whose history is whole: rows the upstream's background fill
  // writes for yesterday after the mirror's snapshot reach it by the markets delta, whose rows
  // carry no liquidity (docs/feeds.md, "Not yet").
  await until('the upstream history', async () => {
    const r = await upstream.get('/readyz', {});
    return r.body.history === 'complete' ? true : undefined;
  });
  mirror = await startTestServer({
    upstream: { url: upstream.url, key: upstream.key, pollMs: 200 },
    logLevel: 'warn',
  });
});

after(async () => {
  if (process.env.MIRROR_LOGS) for (const l of mirror?.logs ?? []) process.stderr.write(l);
  await mirror?.close();
  await upstream?.close();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ready = (s: TestServer) => async () => {
  const r = await s.get('/readyz', {});
  return r.status === 200 ? r.body : undefined;
};

const dates = () => [Date.now() - DAY_MS, Date.now()].map((ms) => new Date(ms).toISOString().slice(0, 10));

/** Both servers' answers to a path, without the meta that names each log's own cursor. */
async function both(path: string): Promise<[unknown, unknown]> {
  const [a, b] = await Promise.all([upstream.get(path), mirror.get(path)]);
  assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
  assert.equal(b.status, 200, `${path} on the mirror: ${JSON.stringify(b.body)}`);
  return [strip(a.body), strip(b.body)];
}

function strip(body: any): unknown {
  if (body && typeof body === 'object' && 'meta' in body) {
    const { delta_last_id: _d, epoch: _e, ...meta } = body.meta ?? {};
    return { ...body, meta };
  }
  return body;
}

/** Where two answers differ (JSON paths, at most 20), so a failure names the fields. */
function differences(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= 20) return out;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (a !== b) out.push(`${path}: ${JSON.stringify(a)} upstream, ${JSON.stringify(b)} mirror`);
    return out;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  if (JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b)) && !Array.isArray(a)) {
    out.push(`${path}: keys ${Object.keys(a).join(',')} upstream, ${Object.keys(b).join(',')} mirror`);
  }
  for (const k of keys) differences((a as any)[k], (b as any)[k], `${path}/${k}`, out);
  return out;
}

function same(mirrored: unknown, upstreamBody: unknown, what: string): void {
  assert.deepEqual(differences(upstreamBody, mirrored), [], what);
  assert.deepEqual(mirrored, upstreamBody, what);
}

/** Every page of an event's plays on both servers, newest first as the route pages them. */
async function bothPlays(eventId: string): Promise<[unknown[], unknown[]]> {
  const pages: [unknown[], unknown[]] = [[], []];
  for (let before = ''; ;) {
    const [a, b] = await both(`/api/v2/events/${eventId}/plays${before}`);
    pages[0].push(a);
    pages[1].push(b);
    const next = (a as any).meta.next_before_sequence;
    if (next === null) return pages;
    before = `?before_sequence=${next}`;
  }
}

/** The market ids the upstream prices for the sport on a day, in groups of 12. */
async function groups(date: string): Promise<number[][]> {
  const r = await upstream.get(`/api/v2/sports/${SPORT}/markets/${date}`);
  const ids = [...new Set((r.body[String(SPORT)] ?? []).map((d: { id: number }) => d.id) as number[])].sort(
    (a, b) => a - b,
  );
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += 12) out.push(ids.slice(i, i + 12));
  return out.length > 0 ? out : [[1, 2, 3]];
}

/** Stops the upstream's simulator and waits for the mirror to have read the upstream to its head. */
async function settle(): Promise<void> {
  // The past part of the upstream's first fill commits in the background: it must be over too.
  await until('the upstream history', async () => {
    const r = await upstream.get('/readyz', {});
    return r.body.history === 'complete' ? true : undefined;
  });
  await upstream.server.simulator?.stop();
  const head = upstream.server.board.head;
  const client = new OddsbaseClient({ baseUrl: upstream.url, key: upstream.key });
  const cursor = (await client.eventDelta({})).data.meta.delta_last_id;
  assert.ok(head > 0 && cursor);
  // Two full polls after the upstream stopped: everything it committed has been read.
  const since = Date.now();
  await until('the mirror to poll the stopped upstream', async () => {
    const m = mirror.server.services.mirror!;
    return m.state.lastSyncMs > since + 500 ? true : undefined;
  });
}

test('after catch-up, the mirrored days equal the upstream field by field, ids included', async () => {
  await until('the upstream to be ready', ready(upstream));
  const body = await until('the mirror to catch up', ready(mirror), 300_000);
  assert.equal((body as any).feed, 'upstream');
  assert.equal((body as any).upstream, 'following');
  await settle();
  let plays = 0;
  let boxValues = 0;
  for (const date of dates()) {
    for (const ids of await groups(date)) {
      const q = `market_ids=${ids.join(',')}&include=all_periods`;
      const [a, b] = await both(`/api/v2/sports/${SPORT}/events/${date}?${q}`);
      assert.ok((a as any).events.length > 0, `upstream has events on ${date}`);
      same(b, a, `events ${date} ${ids}`);
      const [x, y] = await both(`/api/v2/sports/${SPORT}/openers/${date}?${q}`);
      same(y, x, `openers ${date} ${ids}`);
      const [c, d] = await both(`/api/v2/sports/${SPORT}/closing/${date}?${q}`);
      same(d, c, `closing ${date} ${ids}`);
    }
    const [a] = await both(`/api/v2/sports/${SPORT}/events/${date}`);
    for (const e of (a as any).events) {
      const [x, y] = await both(`/api/v2/events/${e.event_id}/best-line`);
      same(y, x, `best line of ${e.event_id}`);
      for (const box of ['stats', 'players/stats']) {
        const [ub, mb] = await both(`/api/v2/events/${e.event_id}/${box}`);
        same(mb, ub, `${box} of ${e.event_id}`);
        boxValues += (ub as any[]).reduce((n, g) => n + g.stats.length, 0);
      }
      const [u, m] = await bothPlays(e.event_id);
      same(m, u, `plays of ${e.event_id}`);
      plays += (u[0] as any).meta.last_sequence;
    }
  }
  assert.ok(plays > 0 && boxValues > 0, 'the upstream has plays and box scores on the mirrored days');
  const [fa, fb] = await both(`/api/v2/sports/${SPORT}/futures?include_settled=true`);
  assert.ok((fa as any).events.length > 0, 'the upstream has futures boards');
  same(fb, fa, 'futures');
});
