import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { PageCache } from '../../src/http/page-cache.ts';

// What the trick keeps: the cache is pinned to it ('kept'), whatever ODDSBASE_PLAIN says.
const page = (n: number) => [Buffer.from('{"deltas":['), Buffer.alloc(n, 32), Buffer.from(']}')];

test('a page is kept from its second read: the first leaves only a mark', () => {
  const budget = new ByteBudget(64 * 1024 * 1024);
  const pages = new PageCache(budget, 'kept');
  pages.set('a', page(100_000), 10, 5000);
  assert.equal(pages.get('a', 10), undefined);
  assert.ok(budget.stats().bytes < 1000, `a mark costs ${budget.stats().bytes} bytes`);
  pages.set('a', page(100_000), 10, 5000);
  assert.equal(pages.get('a', 10)?.points, 5000);
  assert.ok(budget.stats().bytes > 100_000);
});

test('pages read once (distinct old cursors) never take the budget from pages read again', () => {
  const budget = new ByteBudget(4 * 1024 * 1024);
  const pages = new PageCache(budget, 'kept');
  pages.set('polled', page(200_000), 1, 5000);
  pages.set('polled', page(200_000), 1, 5000);
  for (let i = 0; i < 1000; i++) pages.set(`once-${i}`, page(200_000), i, 5000);
  assert.ok(pages.get('polled', 1), 'the page read twice is still kept');
  assert.ok(budget.stats().bytes < 1024 * 1024, `${budget.stats().bytes} bytes kept for 1,000 one-off pages`);
});

test('a kept page is served only to a reader whose visible head covers its rows', () => {
  const pages = new PageCache(new ByteBudget(8 * 1024 * 1024), 'kept');
  pages.set('p', page(10), 500, 3);
  pages.set('p', page(10), 500, 3);
  assert.equal(pages.get('p', 499), undefined);
  assert.equal(pages.get('p', 500)?.parts.length, 3);
});
