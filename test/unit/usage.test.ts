import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf } from '../../src/access/authenticator.ts';
import { newKeyRecord } from '../../src/access/keys.ts';
import { dailyWindow, monthlyWindow, splitPoints, usagePlan, weeklyWindow } from '../../src/access/usage.ts';

const at = Date.parse('2026-11-23T15:30:00Z');

test('periods: UTC day, calendar month, seven days from the account creation', () => {
  assert.deepEqual(dailyWindow(at), {
    name: 'daily',
    id: '2026-11-23',
    startMs: Date.parse('2026-11-23T00:00:00Z'),
    endMs: Date.parse('2026-11-24T00:00:00Z'),
  });
  const m = monthlyWindow(Date.parse('2026-12-31T23:59:59Z'));
  assert.equal(m.id, '2026-12');
  assert.equal(m.endMs, Date.parse('2027-01-01T00:00:00Z'));
  const created = Date.parse('2026-11-01T06:00:00Z');
  const w = weeklyWindow(created, at);
  assert.equal(w.startMs, Date.parse('2026-11-22T06:00:00Z'));
  assert.equal(w.endMs - w.startMs, 7 * 86_400_000);
});

test('plans: Free daily with a monthly cap; weekly plans get monthly x 12 / 52', () => {
  const free = usagePlan(accountOf(newKeyRecord('ob_a', 'free')), at);
  assert.equal(free.primary.name, 'daily');
  assert.equal(free.included, 20_000);
  assert.equal(free.monthly?.cap, 200_000);
  const weekly = usagePlan(accountOf(newKeyRecord('ob_b', 'ultra', { billing: 'weekly' })), at);
  assert.equal(weekly.primary.name, 'weekly');
  assert.equal(weekly.included, Math.round((100_000_000 * 12) / 52));
  const monthly = usagePlan(accountOf(newKeyRecord('ob_c', 'mega')), at);
  assert.equal(monthly.primary.name, 'monthly');
  assert.equal(monthly.included, 500_000_000);
});

test('points go to the included allowance, then bonus credits, then overage', () => {
  assert.deepEqual(splitPoints(0, 10, 100, 50), { included: 10, credits: 0, overage: 0 });
  assert.deepEqual(splitPoints(95, 10, 100, 3), { included: 5, credits: 3, overage: 2 });
  assert.deepEqual(splitPoints(150, 10, 100, 0), { included: 0, credits: 0, overage: 10 });
});
