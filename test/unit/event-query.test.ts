import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf } from '../../src/access/authenticator.ts';
import { scopeOf } from '../../src/access/plan-scope.ts';
import type { Tier } from '../../src/access/tiers.ts';
import { ApiError } from '../../src/http/errors.ts';
import { eventQueryFor } from '../../src/http/event-query.ts';

function account(tier: Tier) {
  return scopeOf(accountOf({
    key_hash: `hash-${tier}`,
    key_prefix: 'ob_',
    tier,
    label: '',
    created_at: '2026-10-01T00:00:00.000Z',
    revoked_at: null,
    expires_at: null,
    billing: 'monthly',
    budget_cap_usd: null,
    v1: 0,
    v2: 1,
    credits: 0,
    credits_expiry: null,
    custom: null,
  }));
}

test('a repeated query string is parsed once per plan and sport', () => {
  const ultra = account('ultra');
  const url = '/api/v2/sports/4/events/2026-11-23?market_ids=1,2&main_line=true';
  const query = { market_ids: '1,2', main_line: 'true' };
  const first = eventQueryFor(url, query, 4, ultra);
  assert.equal(eventQueryFor(url, query, 4, ultra), first, 'the same plan gets the parsed query back');
  assert.deepEqual([...first.filter.marketIds].sort((a, b) => a - b), [1, 2, 41, 42]);
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
