import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { generateKey, type NewKeyOptions, newKeyRecord } from '../../src/access/keys.ts';
import type { StatsRequest } from '../../src/access/stats-policy.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import { ApiError } from '../../src/projection/errors.ts';
import { requireStats, type RouteDeps } from '../../src/http/route-kit.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Spec, Authentication 6 and Errors: accounts created on or after 2026-09-07T18:00:00Z follow the
 * new stats-access policy, older ones keep legacy access, a new Free account evaluates completed
 * box scores for seven days; refusals are 403 with feature, upgrade_url and sample_url, or 503
 * `stats_policy_unsupported`. Keys are made with chosen creation dates in the server's own key
 * store and resolved by its authenticator and access control, at the server's clock, as a stats
 * route resolves them through `requireStats`.
 */

const NOW = Date.parse('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
let s: TestServer;

before(async () => {
  s = await startTestServer({ now: () => NOW });
});

after(() => s.close());

/** What a stats route does with the caller of `key`: undefined when allowed, else the error sent. */
async function refusal(key: string, stats: StatsRequest): Promise<ApiError | undefined> {
  const { services } = s.server;
  const account = await services.auth.authenticate(key);
  assert.ok(account, 'the key authenticates');
  const deps = { access: services.access } as RouteDeps;
  try {
    requireStats(deps, { account } as FastifyRequest, stats);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
}

const key = (tier: Tier, createdAt: string, opts: NewKeyOptions = {}) =>
  s.newKey(tier, { createdAt: new Date(createdAt), ...opts });

const box = { feature: 'completed_box_scores', currentSeason: true } as const;
const live = { feature: 'live_game_stats', currentSeason: true } as const;
const season = { feature: 'season_stats', currentSeason: true } as const;

test('an account created before the cutoff keeps every stats feature, whatever its plan', async () => {
  const legacyFree = await key('free', '2026-09-07T17:59:59Z');
  for (const stats of [box, live, season, { ...box, currentSeason: false }])
    assert.equal(await refusal(legacyFree, stats), undefined, stats.feature);
  const legacyStarter = await key('starter', '2025-01-01T00:00:00Z');
  assert.equal(await refusal(legacyStarter, live), undefined);
});

test('an account created on or after the cutoff gets the features of its plan', async () => {
  const starter = await key('starter', '2026-09-07T18:00:00Z');
  assert.equal(await refusal(starter, box), undefined);
  const denied = await refusal(starter, live);
  assert.equal(denied?.statusCode, 403);
  assert.deepEqual(denied?.body, {
    error: 'Live game stats require Ultra plan or higher',
    feature: 'live_game_stats',
    upgrade_url: 'https://oddsbase.example/pricing',
    sample_url: '/api/v2/stats/sample',
  });
  assert.equal((await refusal(starter, season))?.statusCode, 403);
  const pro = await key('pro', '2026-10-01T00:00:00Z');
  assert.equal(await refusal(pro, season), undefined);
  assert.equal((await refusal(pro, live))?.body.feature, 'live_game_stats');
  const ultra = await key('ultra', '2026-11-01T00:00:00Z');
  for (const stats of [box, live, season]) assert.equal(await refusal(ultra, stats), undefined);
});

test('a new Free account evaluates current-season box scores for its first seven days', async () => {
  const fresh = await key('free', new Date(NOW - 3 * DAY).toISOString());
  assert.equal(await refusal(fresh, box), undefined);
  assert.equal((await refusal(fresh, { ...box, currentSeason: false }))?.statusCode, 403);
  assert.equal((await refusal(fresh, season))?.statusCode, 403);
  const lapsed = await key('free', new Date(NOW - 7 * DAY).toISOString());
  const denied = await refusal(lapsed, box);
  assert.equal(denied?.statusCode, 403);
  assert.equal(denied?.body.feature, 'completed_box_scores');
  assert.match(String(denied?.body.error), /evaluation .* has ended/);
});

test('an account whose creation date or plan cannot be read gets 503 stats_policy_unsupported', async () => {
  const { keys } = s.server;
  const undated = generateKey();
  await keys.insert({ ...newKeyRecord(undated, 'pro'), created_at: '' });
  const unknownPlan = generateKey();
  await keys.insert({ ...newKeyRecord(unknownPlan, 'pro'), tier: 'platinum' as Tier });
  for (const k of [undated, unknownPlan]) {
    const err = await refusal(k, box);
    assert.equal(err?.statusCode, 503);
    assert.equal(err?.body.code, 'stats_policy_unsupported');
    assert.deepEqual(err?.headers, {}, 'no Retry-After');
  }
});
