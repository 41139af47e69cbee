import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf } from '../../src/access/authenticator.ts';
import { scopeOf } from '../../src/access/plan-scope.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { ApiError } from '../../src/projection/errors.ts';
import { EventQueryCache } from '../../src/projection/event-query.ts';
import { keyRecord } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG, simulatorCatalogOf } from '../helpers/simulator-catalog.ts';

const queries = new EventQueryCache(new ByteBudget(1024 * 1024), SIMULATOR_CATALOG);
const eventQueryFor = queries.get.bind(queries);

function account(tier: Tier) {
  return scopeOf(accountOf(keyRecord(tier)), SIMULATOR_CATALOG);
}

test('a repeated query string is parsed once per plan and sport, kept from its second request', () => {
  // What the trick keeps, whatever the switch says: its plain twin keeps nothing.
  const kept = new EventQueryCache(new ByteBudget(1024 * 1024), SIMULATOR_CATALOG, 'kept');
  const eventQueryFor = kept.get.bind(kept);
  const ultra = account('ultra');
  const url = '/api/v2/sports/4/events/2026-11-23?market_ids=1,2&main_line=true';
  const query = { market_ids: '1,2', main_line: 'true' };
  const once = eventQueryFor(url, query, 4, ultra);
  const first = eventQueryFor(url, query, 4, ultra);
  assert.notEqual(first, once, 'a query asked once leaves a mark, not the parsed query');
  assert.deepEqual(first, once);
  assert.equal(eventQueryFor(url, query, 4, ultra), first, 'the same plan gets the parsed query back');
  assert.deepEqual(
    [...first.filter.marketIds].sort((a, b) => a - b),
    [1, 2, 41, 42],
  );
  assert.equal(first.filter.mainLine, true);
  assert.notEqual(eventQueryFor(url, query, 3, ultra), first, 'another sport is parsed on its own');
});

test('plans do not share parsed queries: each sees its own coverage', () => {
  const url = '/api/v2/sports/4/events/2026-11-23?market_ids=1';
  const query = { market_ids: '1' };
  const ultra = eventQueryFor(url, query, 4, account('ultra'));
  const free = eventQueryFor(url, query, 4, account('free'));
  assert.notEqual(free.filterKey, ultra.filterKey);
  assert.equal(ultra.filter.affiliateIds, null, 'Ultra sees every book');
  assert.ok(free.filter.affiliateIds !== null, 'Free sees only the books of its plan');
});

test('a query that fails is refused every time, for every plan that lacks the feature', () => {
  const url = '/api/v2/sports/4/events/2026-11-23?market_ids=29';
  const query = { market_ids: '29' };
  for (let i = 0; i < 2; i++) {
    assert.throws(() => eventQueryFor(url, query, 4, account('free')), ApiError);
  }
  assert.doesNotThrow(() => eventQueryFor(url, query, 4, account('ultra')));
  const bad = '/api/v2/sports/4/events/2026-11-23?main_line=maybe';
  for (let i = 0; i < 2; i++) {
    assert.throws(() => eventQueryFor(bad, { main_line: 'maybe' }, 4, account('ultra')), ApiError);
  }
});

test('include=all_periods widens the requested families to every period, within the plan', () => {
  const ids = (query: { market_ids?: string; include?: string | string[] }, tier: Tier, sport = 4) =>
    [...eventQueryFor(`/x?${JSON.stringify(query)}`, query, sport, account(tier)).filter.marketIds].sort(
      (a, b) => a - b,
    );
  assert.deepEqual(
    ids({ include: 'all_periods' }, 'ultra'),
    [1, 2, 3, 4, 5, 6, 41, 42, 43, 1008, 1009, 1010, 1150, 1151, 1152, 1153, 1154, 1155, 1156, 1157],
  );
  assert.deepEqual(ids({ market_ids: '3', include: 'all_periods' }, 'ultra'), [3, 6, 43, 1010, 1152, 1156]);
  // A live or period id names its family too; markets without period markets stay as they are.
  assert.deepEqual(ids({ market_ids: '5,94', include: 'all_periods' }, 'ultra'), [2, 5, 42, 94, 96, 1009, 1151, 1155]);
  // Free has no in-play markets; its periods are narrowed when events are viewed (filter.periodIds).
  assert.deepEqual(ids({ market_ids: '1', include: 'all_periods' }, 'free'), [1, 4, 1008, 1150, 1153]);
  const free = eventQueryFor('/y', { include: 'all_periods' }, 4, account('free'));
  assert.deepEqual([...(free.filter.periodIds ?? [])], [0]);
});

test('include may be repeated; every value is checked', () => {
  const q = eventQueryFor('/z?r', { include: ['price_delta', 'all_periods'] }, 4, account('ultra'));
  assert.equal(q.filter.includePriceDelta, true);
  assert.ok(q.filter.marketIds.has(1008));
  assert.throws(() => eventQueryFor('/z?bad', { include: ['price_delta', 'nope'] }, 4, account('ultra')), ApiError);
});

test('the default market ids are the sport record’s, and follow a change of it', () => {
  const catalog = simulatorCatalogOf();
  const kept = new EventQueryCache(new ByteBudget(1024 * 1024), catalog, 'kept');
  const ultra = account('ultra');
  const url = '/api/v2/sports/4/events/2026-11-23';
  const defaults = () => {
    kept.get(url, {}, 4, ultra);
    return [...kept.get(url, {}, 4, ultra).filter.marketIds].sort((a, b) => a - b);
  };
  assert.deepEqual(defaults(), [1, 2, 3, 41, 42, 43]);
  assert.deepEqual([...catalog.defaultMarketIds(6)], [1, 2, 3, 563], 'hockey takes the 3-way result');
  catalog.put({ ...catalog.sport(4)!, three_way: true });
  assert.deepEqual(defaults(), [1, 2, 3, 41, 42, 43, 563]);
  assert.deepEqual([...catalog.defaultMarketIds(999)], [1, 2, 3], 'a sport the catalog lacks');
});
