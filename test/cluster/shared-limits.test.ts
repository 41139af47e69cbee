import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { Redis } from 'ioredis';
import { AccessControl } from '../../src/access/access-control.ts';
import { accountOf } from '../../src/access/authenticator.ts';
import { isBurstCounter, SharedBursts } from '../../src/access/bursts.ts';
import { RedisCounters } from '../../src/access/counters/redis-counters.ts';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { DEFAULT_LIMITS } from '../../src/config.ts';
import { counterSendGaps } from '../../src/perf/send-gap.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
after(() => redis.close());

const MINUTE_S = 60;
/** The gaps compose gives the counters by default: 20 ms near a ceiling, 250 ms otherwise. */
const gaps = counterSendGaps(DEFAULT_LIMITS.counterSendGapMs, DEFAULT_LIMITS.counterFarSendGapMs);
const shared = (prefix: string) =>
  new RedisCounters({
    url: redis.url,
    driver: Redis,
    prefix,
    unsaved: isBurstCounter,
    sendGapMs: gaps.nearMs,
    farSendGapMs: gaps.farMs,
  });

it('a key allowed 10 requests a second gets 10 across two nodes, within 10% over a minute', async (t) => {
  const prefix = `test:${randomUUID()}:`;
  const counters = [0, 1].map(() => shared(prefix));
  t.after(() => Promise.all(counters.map((c) => c.close())));
  await Promise.all(counters.map((c) => c.ready()));
  const nodes = counters.map((c) => new AccessControl(c, Date.now, () => {}, new SharedBursts(c)));
  const account = accountOf(newKeyRecord(generateKey(), 'ultra'));
  assert.equal(account.entitlements.burstPerSecond, 10);

  // Each node is asked 15 times a second at random moments: 30 asked, 10 allowed.
  const start = Math.ceil(Date.now() / 1000) + 1;
  const end = start + MINUTE_S;
  const admitted = [0, 0];
  const asked = [0, 0];
  await Promise.all(
    nodes.map(async (node, i) => {
      while (Date.now() < end * 1000) {
        await new Promise((r) => setTimeout(r, Math.random() * 133));
        const now = Date.now();
        if (now < start * 1000 || now >= end * 1000) continue;
        asked[i]!++;
        if (node.admit(account, false) === undefined) admitted[i]!++;
      }
    }),
  );
  const total = admitted[0]! + admitted[1]!;
  t.diagnostic(`asked ${asked.join(' + ')}, admitted ${admitted.join(' + ')} = ${total} in ${MINUTE_S} s`);
  assert.ok(asked[0]! > 12 * MINUTE_S && asked[1]! > 12 * MINUTE_S, 'both nodes were asked beyond the ceiling');
  assert.ok(admitted[0]! > 0 && admitted[1]! > 0, 'both nodes admitted some');
  assert.ok(total >= 0.9 * 10 * MINUTE_S && total <= 1.1 * 10 * MINUTE_S, `${total} admitted, not 600 ± 10%`);
});

it("a Free key's daily points are counted across nodes: the cap reached on two refuses on both", async (t) => {
  const prefix = `test:${randomUUID()}:`;
  const counters = [0, 1].map(() => shared(prefix));
  t.after(() => Promise.all(counters.map((c) => c.close())));
  await Promise.all(counters.map((c) => c.ready()));
  const [a, b] = counters.map((c) => new AccessControl(c, Date.now, () => {}, new SharedBursts(c))) as [
    AccessControl,
    AccessControl,
  ];
  const account = accountOf(newKeyRecord(generateKey(), 'free'));
  const included = account.entitlements.includedPoints;
  const headers = new Map<string, string>();
  const sink = { header: (name: string, value: string) => headers.set(name, value) };
  // Each node serves a little over half of the day's points: neither alone reaches the cap.
  a.meter(account, included / 2 + 1, sink);
  b.meter(account, included / 2 + 1, sink);
  for (const c of counters) await c.settled();
  for (const c of counters) await c.settled();
  assert.equal(b.capReached(account)?.reason, 'daily_cap');
  assert.equal(a.capReached(account)?.reason, 'daily_cap');
  b.meter(account, 0, sink);
  assert.equal(headers.get('x-datapoints-used'), String(included + 2));
});

it("a Free key's daily cap, metered fast on two nodes at once, is passed by less than 10%", async (t) => {
  const prefix = `test:${randomUUID()}:`;
  const counters = [0, 1].map(() => shared(prefix));
  t.after(() => Promise.all(counters.map((c) => c.close())));
  await Promise.all(counters.map((c) => c.ready()));
  await Promise.all(counters.map((c) => c.settled()));
  const nodes = counters.map((c) => new AccessControl(c, Date.now, () => {}, new SharedBursts(c)));
  const account = accountOf(newKeyRecord(generateKey(), 'free'));
  const included = account.entitlements.includedPoints;
  const POINTS = 100;
  const served = [0, 0];
  // Each node serves 100 points every 5 ms (20,000 a second): a far gap of 250 ms alone would let
  // each pass the cap by up to 5,000 points before it saw the other's.
  await Promise.all(
    nodes.map(async (node, i) => {
      // The caps alone (as an open stream asks): Free's ceiling of 1 a second is not what is tested.
      while (node.capReached(account) === undefined) {
        node.meter(account, POINTS, { header: () => undefined });
        served[i]! += POINTS;
        await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
  const total = served[0]! + served[1]!;
  t.diagnostic(`served ${served.join(' + ')} = ${total} points of ${included}`);
  assert.ok(served[0]! > 0 && served[1]! > 0, 'both nodes served');
  assert.ok(total >= included && total <= 1.1 * included, `${total} points served, not ${included} + < 10%`);
});
