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

test('points of reads beside the follow are part of the poll cost, each counted once', () => {
  const clock = { now: DAY * 10 + DAY / 2 };
  const b = new DailyBudget(1_000, () => clock.now);
  // Season reads before the first poll: 6 points.
  b.count(6, true);
  const before = { used: b.usedToday, beside: b.beside };
  b.count(10);
  // And 4 while it runs: counted in the day, and not in the poll's own cost.
  b.count(4, true);
  assert.equal(b.beside - before.beside, 4);
  b.polled(b.usedToday - before.used - (b.beside - before.beside));
  // 1,000 − 20 points left, 43,200,000 ms left, the poll's 10 and the 10 read beside it: 20.
  assert.equal(b.spacing(2000), Math.ceil((43_200_000 * 20) / 980));
  // A second poll of 16, nothing beside it: 36 for two polls.
  b.polled(16);
  assert.equal(b.spacing(2000), Math.ceil((43_200_000 * 18) / 980));
});
