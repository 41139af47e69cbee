import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { both, mirroredDates, ready, same, samePrices, settle, until } from '../helpers/mirror-compare.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The upstream mirror against a second oddsbase on loopback: a simulator server is the upstream,
 * and a server with `--feed upstream` mirrors it. Once the upstream stops moving and the mirror has
 * caught up, every answer of the mirrored days equals the upstream's, ids included.
 */

const SPORT = 4;
let upstream: TestServer;
let mirror: TestServer;

before(async () => {
  upstream = await startTestServer({ simulator: true, sports: [SPORT], seed: 5 });
  // The mirror starts on an upstream whose history is whole (test/slow/mirror-filling.test.ts
  // starts one while it is filling).
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

/** Every page of an event's plays on both servers, newest first as the route pages them. */
async function bothPlays(eventId: string): Promise<[unknown[], unknown[]]> {
  const pages: [unknown[], unknown[]] = [[], []];
  for (let before = ''; ;) {
    const [a, b] = await both(upstream, mirror, `/api/v2/events/${eventId}/plays${before}`);
    pages[0].push(a);
    pages[1].push(b);
    const next = (a as any).meta.next_before_sequence;
    if (next === null) return pages;
    before = `?before_sequence=${next}`;
  }
}

test('after catch-up, the mirrored days equal the upstream field by field, ids included', async () => {
  await until('the upstream to be ready', ready(upstream));
  const body = await until('the mirror to catch up', ready(mirror), 300_000);
  assert.equal((body as any).feed, 'upstream');
  assert.equal((body as any).upstream, 'following');
  await settle(upstream, mirror);
  await samePrices(upstream, mirror, SPORT);
  let plays = 0;
  let boxValues = 0;
  for (const date of mirroredDates()) {
    const [a] = await both(upstream, mirror, `/api/v2/sports/${SPORT}/events/${date}`);
    for (const e of (a as any).events) {
      for (const box of ['stats', 'players/stats']) {
        const [ub, mb] = await both(upstream, mirror, `/api/v2/events/${e.event_id}/${box}`);
        same(mb, ub, `${box} of ${e.event_id}`);
        boxValues += (ub as any[]).reduce((n, g) => n + g.stats.length, 0);
      }
      const [u, m] = await bothPlays(e.event_id);
      same(m, u, `plays of ${e.event_id}`);
      plays += (u[0] as any).meta.last_sequence;
    }
  }
  assert.ok(plays > 0 && boxValues > 0, 'the upstream has plays and box scores on the mirrored days');
  const [fa, fb] = await both(upstream, mirror, `/api/v2/sports/${SPORT}/futures?include_settled=true`);
  assert.ok((fa as any).events.length > 0, 'the upstream has futures boards');
  same(fb, fa, 'futures');
});
