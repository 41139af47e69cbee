import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessControl } from '../../src/access/access-control.ts';
import { accountOf } from '../../src/access/authenticator.ts';
import { SharedBursts } from '../../src/access/bursts.ts';
import type { Counters } from '../../src/access/counters/counters.ts';
import { MemoryCounters } from '../../src/access/counters/memory-counters.ts';
import { FailedKeyChecks, FAILED_KEY_CHECK_LIMITS } from '../../src/access/failed-auth.ts';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { counterSendGaps, nearCeiling } from '../../src/perf/send-gap.ts';
import { PLAIN } from '../../src/perf/switch.ts';

test('a counter is near its ceiling from a half of it shared among the nodes to as far past it', () => {
  // One node: from 5 of 10 to 15.
  assert.equal(nearCeiling(4, 10, 1), false);
  assert.equal(nearCeiling(5, 10, 1), true);
  assert.equal(nearCeiling(10, 10, 1), true);
  assert.equal(nearCeiling(14, 10, 1), true);
  assert.equal(nearCeiling(15, 10, 1), false);
  // Two nodes: from 2.5 of 10 to 12.5, so a node that has counted 3 of its own hurries.
  assert.equal(nearCeiling(2, 10, 2), false);
  assert.equal(nearCeiling(3, 10, 2), true);
  assert.equal(nearCeiling(12, 10, 2), true);
  assert.equal(nearCeiling(13, 10, 2), false);
  // Ten nodes and a ceiling of 10 a second: every count is near.
  assert.equal(nearCeiling(1, 10, 10), true);
  // A day's points far below the cap, and far past the included points (all of it overage now).
  assert.equal(nearCeiling(1_000, 20_000, 2), false);
  assert.equal(nearCeiling(30_000, 20_000, 2), false);
});

test('below the band, what two nodes hold unseen by each other stays under half the ceiling', () => {
  for (const ceiling of [1, 2, 5, 10, 100, 20_000]) {
    for (const nodes of [1, 2, 3, 8]) {
      // The most a node may count of its own and still not be near: its view holds all of it.
      let own = 0;
      while (!nearCeiling(own + 1, ceiling, nodes)) own++;
      assert.ok(own * nodes < ceiling / 2 || own === 0, `${nodes} nodes x ${own} for a ceiling of ${ceiling}`);
    }
  }
});

test('the gaps: far at least near; the plain twin sends as soon as the previous send is answered', () => {
  if (PLAIN) {
    assert.deepEqual(counterSendGaps(20, 250), { nearMs: 0, farMs: 0 });
    return;
  }
  assert.deepEqual(counterSendGaps(20, 250), { nearMs: 20, farMs: 250 });
  assert.deepEqual(counterSendGaps(20, 5), { nearMs: 20, farMs: 20 });
  assert.deepEqual(counterSendGaps(0, 0), { nearMs: 0, farMs: 0 });
});

/** Memory counters that note the ceiling each counter was last changed with, by key. */
class CeilingsSeen extends MemoryCounters implements Counters {
  readonly ceilings = new Map<string, number | undefined>();
  override incr(key: string, by: number, expiresAtMs: number, ceiling?: number): number {
    this.ceilings.set(key, ceiling);
    return super.incr(key, by, expiresAtMs);
  }
  /** The ceiling of the one counter whose key matches. */
  of(pattern: RegExp): number | undefined {
    const keys = [...this.ceilings.keys()].filter((k) => pattern.test(k));
    assert.equal(keys.length, 1, `one counter like ${pattern} among ${[...this.ceilings.keys()].join(', ')}`);
    return this.ceilings.get(keys[0]!);
  }
}

const NO_HEADERS = { header: () => undefined };

test('the access rules name each counter its ceiling: per-second, daily, monthly, credits, budget', () => {
  const counters = new CeilingsSeen();
  const access = new AccessControl(counters, Date.now, () => {}, new SharedBursts(counters));
  const free = accountOf(newKeyRecord(generateKey(), 'free'));
  assert.equal(access.admit(free, true), undefined);
  access.meter(free, 3, NO_HEADERS);
  const h = free.keyHash;
  assert.equal(counters.of(new RegExp(`^rps:${h}:`)), free.entitlements.burstPerSecond);
  assert.equal(counters.of(new RegExp(`^use:${h}:\\d{4}-\\d\\d-\\d\\d$`)), free.entitlements.includedPoints);
  assert.equal(counters.of(new RegExp(`^use:${h}:\\d{4}-\\d\\d$`)), free.entitlements.monthlyCap);

  const paid = accountOf(newKeyRecord(generateKey(), 'starter', { credits: 10, budgetCapUsd: 50 }));
  const p = paid.keyHash;
  const included = paid.entitlements.includedPoints;
  access.meter(paid, included - 1, NO_HEADERS);
  assert.equal(counters.of(new RegExp(`^use:${p}:`)), included);
  // Past the included points: 10 from the credits, then overage up to the budget cap's points.
  access.meter(paid, 20, NO_HEADERS);
  assert.equal(counters.of(new RegExp(`^credit:${p}$`)), 10);
  assert.equal(counters.of(new RegExp(`^over:${p}:`)), 50 / paid.entitlements.overagePerPoint!);
});

test("the failed-key ceiling is named with an address's failures", () => {
  const counters = new CeilingsSeen();
  const checks = new FailedKeyChecks(FAILED_KEY_CHECK_LIMITS, Date.now, counters);
  checks.fail('192.0.2.1');
  assert.equal(counters.of(/^fk:/), FAILED_KEY_CHECK_LIMITS.ceiling);
});
