import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateLoad, loadingLine, loadProgress, parseLoadTiming } from '../../src/ops/load-estimate.ts';

test('a load of an empty store (a first start) does not set the pace of the next, larger one: no figure then', () => {
  const firstStart = parseLoadTiming(JSON.stringify({ ms: 40, rows: 0 }));
  const e = estimateLoad(1_031_249, firstStart);
  assert.deepEqual(e, { rows: 1_031_249, ms: undefined });
  assert.equal(
    loadingLine(e),
    'loading the store (1,031,249 changes; no load this large timed here yet, progress follows)',
  );
});

test('a timed load of a large store sets the pace, scaled by the rows now', () => {
  const e = estimateLoad(1_200_000, parseLoadTiming(JSON.stringify({ ms: 10_000, rows: 1_000_000 })));
  assert.deepEqual(e, { rows: 1_200_000, ms: 12_000 });
  assert.equal(loadingLine(e), "loading the store (1,200,000 changes, about 12 s at the last load's pace)");
});

test('a timing kept by the store size in bytes (an older server), or none, is not used; an empty store says so', () => {
  assert.equal(parseLoadTiming(JSON.stringify({ ms: 7000, bytes: 510 * 1024 * 1024 })), undefined);
  assert.equal(parseLoadTiming('950'), undefined);
  assert.equal(parseLoadTiming(undefined), undefined);
  assert.equal(loadingLine(estimateLoad(0, undefined)), 'loading the store (empty)');
});

test("progress lines come every few seconds, with the part's share and the time it has left at its own pace", () => {
  let ms = 0;
  const lines: string[] = [];
  const progress = loadProgress(
    (l) => lines.push(l),
    5000,
    () => ms,
  );
  progress({ part: 'prices', done: 0, total: 400_000 });
  ms = 2000;
  progress({ part: 'prices', done: 40_000, total: 400_000 });
  assert.deepEqual(lines, [], 'none before the first few seconds');
  ms = 5000;
  progress({ part: 'prices', done: 100_000, total: 400_000 });
  ms = 7000;
  progress({ part: 'prices', done: 140_000, total: 400_000 });
  ms = 10_000;
  progress({ part: 'box scores', done: 0, total: 0 });
  ms = 12_000;
  progress({ part: 'box scores', done: 25_000, total: 0 });
  ms = 15_000;
  progress({ part: 'box scores', done: 50_000, total: 0 });
  ms = 16_000;
  progress({ part: 'recent changes', done: 0, total: 3000 });
  ms = 21_000;
  progress({ part: 'recent changes', done: 0, total: 3000 });
  ms = 26_000;
  progress({ part: 'recent changes', done: 3000, total: 3000 });
  assert.deepEqual(lines, [
    'loading the store: prices 25% (5 s so far, about 15 s left of them)',
    'loading the store: box scores, 0 rows read (10 s so far)',
    'loading the store: box scores, 50,000 rows read (15 s so far)',
    'loading the store: recent changes 0% (21 s so far, measuring the time left)',
    'loading the store: recent changes 100% (26 s so far)',
  ]);
});
