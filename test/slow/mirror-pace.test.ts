import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { type HttpProxy, startHttpProxy } from '../helpers/http-proxy.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/mirror-compare.ts';

/**
 * A polling mirror on an upstream key with a small per-second ceiling: its polls (two delta answers
 * each, at 100 ms) and extra reads would ask far more often than the ceiling allows, so it paces
 * itself by the `X-Rate-Limit` its answers carry and meets no burst 429, while still following.
 */

const E = 'pace000000000000000000000000001';
const PER_SECOND = 5;
const POLLS = 12;
let upstream: TestServer;
let proxy: HttpProxy;
let mirror: TestServer;
let token: string;
let batches = 0;
let clock = Date.now() - 3_600_000;

async function ingest(records: unknown[]): Promise<void> {
  const res = await fetch(`${upstream.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ batch_id: `pace-${++batches}`, at: new Date((clock += 1000)).toISOString(), records }),
  });
  assert.equal(res.status, 200, await res.text());
}

const removal = (key: string) => ({ kind: 'catalog', record: { type: 'removal', key } });

/** The upstream's refusals of a reason, from its metrics. */
async function refusals(reason: string): Promise<number> {
  const text = await (await fetch(upstream.server.metricsUrl!)).text();
  const m = new RegExp(`^oddsbase_access_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

async function shownPrice(): Promise<number | undefined> {
  const r = await mirror.get(`/api/v2/events/${E}`);
  if (r.status !== 200) return undefined;
  const ml = r.body.events[0]?.markets.find((m: any) => m.market_id === 1 && m.period_id === 0);
  return ml?.participants.find((p: any) => p.id === 2002)?.lines[0]?.prices['19']?.price;
}

before(async () => {
  upstream = await startTestServer({ feed: 'ingest' });
  token = await adminToken(upstream);
  await ingest([{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]);
  // A small catalog (basketball, and the rosters of the event's teams), so the catch-up's catalog
  // read is some tens of requests, not the simulator's 887 (minutes at this ceiling).
  const sports = (await upstream.get('/api/v2/sports')).body.sports as { sport_id: number }[];
  const teams = (await upstream.get('/api/v2/sports/4/teams')).body.teams as { team_id: number }[];
  await ingest([
    ...sports.filter((x) => x.sport_id !== 4).map((x) => removal(`sport:${x.sport_id}`)),
    ...teams.filter((x) => x.team_id !== 2002 && x.team_id !== 2014).map((x) => removal(`roster:${x.team_id}`)),
  ]);
  proxy = await startHttpProxy(upstream.url);
  const key = await upstream.newKey('enterprise', { custom: JSON.stringify({ burstPerSecond: PER_SECOND }) });
  mirror = await startTestServer({ upstream: { url: proxy.url, key, pollMs: 100, mode: 'poll' } });
});
after(async () => {
  await mirror?.close();
  await proxy?.close();
  await upstream?.close();
});

test('a mirror paces itself to the key’s per-second ceiling: no burst 429, and the follow completes', async () => {
  await until('the mirror to catch up', async () =>
    (await mirror.get('/readyz', {})).status === 200 ? true : undefined,
  );
  const from = proxy.requests.length;
  // Moves the mirror must follow, one after another; each reaches it.
  for (const p of [141, 152, 163]) {
    await ingest([
      price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: p }),
    ]);
    await until(`the move to ${p}`, async () => ((await shownPrice()) === p ? true : undefined));
  }
  await until(`${POLLS} polls`, async () => {
    const polls = proxy.requests.slice(from).filter((r) => r.path.startsWith('/api/v2/markets/delta')).length;
    return polls >= POLLS ? true : undefined;
  });
  const refused = proxy.requests.filter((r) => r.status === 429).map((r) => r.path);
  assert.deepEqual(refused, [], 'no request answered 429, from the catch-up on');
  assert.equal(await refusals('burst'), 0, 'the upstream refused no request for its per-second ceiling');
  // As the proxy saw them: no second held more than the ceiling (a little slack for the hop to the upstream).
  const at = proxy.requests.slice(from).map((r) => r.at);
  for (let i = PER_SECOND; i < at.length; i++) {
    assert.ok(
      at[i]! - at[i - PER_SECOND]! >= 950,
      `requests ${i - PER_SECOND} and ${i} came ${at[i]! - at[i - PER_SECOND]!} ms apart`,
    );
  }
});
