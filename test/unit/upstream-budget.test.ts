import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DailyBudget } from '../../src/feeds/upstream/budget.ts';

const DAY = 86_400_000;

test('no budget: the poll interval as configured, never spent', () => {
  const b = new DailyBudget(0, () => DAY * 10);
  b.count(1_000_000);
  b.polled(500);
  assert.equal(b.spent(), 0);
  assert.equal(b.spacing(2000), 2000);
});

test('polls are spaced so the points left last the day: msLeft × cost / left', () => {
  const clock = { now: DAY * 10 + DAY / 2 };
  const b = new DailyBudget(1_000, () => clock.now);
  b.count(500);
  b.polled(10);
  // 500 points left, 43,200,000 ms left, 10 points a poll: 50 polls, 864,000 ms apart.
  assert.equal(b.spacing(2000), 864_000);
  // A generous budget keeps the configured pace.
  assert.equal(new DailyBudget(10 ** 9, () => clock.now).spacing(2000), 2000);
});

test('a spent budget waits for the next UTC day, which renews it', () => {
  const clock = { now: DAY * 10 + DAY - 60_000 };
  const b = new DailyBudget(100, () => clock.now);
  b.count(100);
  assert.equal(b.spent(), 60_000);
  clock.now += 60_000;
  assert.equal(b.spent(), 0);
  assert.equal(b.usedToday, 0);
});
