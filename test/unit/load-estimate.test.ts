import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateLoad, loadingLine, parseLoadTiming } from '../../src/ops/load-estimate.ts';

const MB = 1024 * 1024;

test('a load of an empty store (a first start) does not set the pace of the next, larger one', () => {
  const firstStart = parseLoadTiming(JSON.stringify({ ms: 40, bytes: 200 * 1024 }));
  const e = estimateLoad(517 * MB, firstStart);
  assert.equal(e.measured, false);
  assert.ok(e.ms > 5000, `a 517 MB store is not loaded in ${e.ms} ms`);
  assert.match(
    loadingLine(e),
    /^loading the store \(517 MB, roughly \d+ s: no load of a store this large timed here yet\)$/,
  );
});

test('a timed load of a large store sets the pace, scaled by the size now', () => {
  const e = estimateLoad(600 * MB, parseLoadTiming(JSON.stringify({ ms: 10_000, bytes: 500 * MB })));
  assert.deepEqual(e, { ms: 12_000, bytes: 600 * MB, measured: true });
  assert.equal(loadingLine(e), "loading the store (600 MB, about 12 s at the last load's pace)");
});

test('a timing kept without its size (an older server) is not used; an empty store says so', () => {
  assert.equal(parseLoadTiming('950'), undefined);
  assert.equal(parseLoadTiming(undefined), undefined);
  assert.equal(loadingLine(estimateLoad(4096, undefined)), 'loading the store (empty)');
});
