import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ready, samePrices, settle, until } from '../helpers/mirror-compare.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A mirror started while its upstream still fills its history in the background: the rows of
 * yesterday's games that the fill commits after the mirror's snapshot reach the mirror through the
 * markets delta, polled (`--upstream-mode poll`), whose rows carry no liquidity or source id. The
 * mirror reads them from the upstream's events and closing answers, so once caught up its prices
 * (book 25's liquidity, book 26's source ids included) equal the upstream's.
 */

const SPORT = 4;
let upstream: TestServer;
let mirror: TestServer;
let historyAtStart = '';

before(async () => {
  upstream = await startTestServer({ simulator: true, sports: [SPORT], seed: 5 });
  mirror = await startTestServer({
    upstream: { url: upstream.url, key: upstream.key, pollMs: 200, mode: 'poll' },
    logLevel: 'warn',
  });
  historyAtStart = String((await upstream.get('/readyz', {})).body.history);
});

after(async () => {
  if (process.env.MIRROR_LOGS) for (const l of mirror?.logs ?? []) process.stderr.write(l);
  await mirror?.close();
  await upstream?.close();
});

test("a mirror started during the upstream's history fill equals it once caught up", async () => {
  assert.notEqual(historyAtStart, 'complete', 'the upstream was still filling its history when the mirror started');
  await until('the mirror to catch up', ready(mirror), 300_000);
  await settle(upstream, mirror);
  await samePrices(upstream, mirror, SPORT);
});
