import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FREE_EVALUATION_MS,
  NEW_POLICY_MINIMUM,
  NEW_STATS_POLICY_FROM,
  STATS_FEATURES,
  type StatsFeature,
  statsAccess,
} from '../../src/access/stats-policy.ts';
import { TIERS, tierAtLeast } from '../../src/catalog/tiers.ts';
import { statsRefused } from '../../src/projection/errors.ts';

const DAY = 86_400_000;
const CUTOFF = NEW_STATS_POLICY_FROM;
const LATER = CUTOFF + 60 * DAY;
const current = (feature: StatsFeature) => ({ feature, currentSeason: true });
const past = (feature: StatsFeature) => ({ feature, currentSeason: false });

test('the cutoff is the spec instant; an account created one millisecond before it keeps legacy access', () => {
  assert.equal(new Date(CUTOFF).toISOString(), '2026-09-07T18:00:00.000Z');
  for (const tier of TIERS)
    for (const feature of STATS_FEATURES)
      for (const req of [current(feature), past(feature)]) {
        const d = statsAccess({ tier, createdMs: CUTOFF - 1 }, req, LATER);
        assert.deepEqual(d, { allowed: true, basis: 'legacy' }, `${tier} ${feature}`);
      }
  // On the instant itself the new policy applies: a Free account there has no season stats.
  assert.equal(statsAccess({ tier: 'free', createdMs: CUTOFF }, current('season_stats'), LATER).allowed, false);
});

test('under the new policy each feature needs its plan: box scores Starter, season stats Pro, live stats Ultra', () => {
  assert.deepEqual(NEW_POLICY_MINIMUM, {
    completed_box_scores: 'starter',
    season_stats: 'pro',
    live_game_stats: 'ultra',
  });
  for (const tier of TIERS)
    for (const feature of STATS_FEATURES) {
      const d = statsAccess({ tier, createdMs: CUTOFF + DAY }, past(feature), LATER);
      const expected = tierAtLeast(tier, NEW_POLICY_MINIMUM[feature]);
      assert.equal(d.allowed, expected, `${tier} ${feature}`);
      if (d.allowed) assert.equal(d.basis, 'plan');
      else {
        assert.equal(d.refusal.kind, 'entitlement');
        if (d.refusal.kind === 'entitlement') {
          assert.equal(d.refusal.feature, feature);
          assert.equal(d.refusal.minimum, NEW_POLICY_MINIMUM[feature]);
        }
      }
    }
  const starter = statsAccess({ tier: 'starter', createdMs: LATER }, current('live_game_stats'), LATER);
  assert.ok(!starter.allowed && /Live game stats require Ultra plan or higher/.test(starter.refusal.message));
});

test('a new Free account reads current-season completed box scores for seven days from its creation', () => {
  const created = CUTOFF + 10 * DAY;
  const free = { tier: 'free', createdMs: created };
  const box = current('completed_box_scores');
  assert.deepEqual(statsAccess(free, box, created), { allowed: true, basis: 'evaluation' });
  assert.deepEqual(statsAccess(free, box, created + FREE_EVALUATION_MS - 1), { allowed: true, basis: 'evaluation' });
  const over = statsAccess(free, box, created + FREE_EVALUATION_MS);
  assert.ok(!over.allowed && /evaluation of current-season box scores has ended/.test(over.refusal.message));
  // Only the current season, only completed box scores.
  const older = statsAccess(free, past('completed_box_scores'), created + DAY);
  assert.ok(!older.allowed && /current-season games only/.test(older.refusal.message));
  assert.equal(statsAccess(free, current('live_game_stats'), created + DAY).allowed, false);
  assert.equal(statsAccess(free, current('season_stats'), created + DAY).allowed, false);
  assert.equal(FREE_EVALUATION_MS, 7 * DAY);
});

test('an account without a creation date or with an unknown plan cannot be resolved', () => {
  for (const account of [
    { tier: 'pro', createdMs: Number.NaN },
    { tier: 'platinum', createdMs: LATER },
    { tier: '', createdMs: CUTOFF - DAY },
  ]) {
    const d = statsAccess(account, current('completed_box_scores'), LATER);
    assert.ok(!d.allowed, JSON.stringify(account));
    assert.equal(d.refusal.kind, 'unsupported');
  }
});

test('refusals become the spec bodies: 403 with feature, upgrade_url and sample_url; 503 without Retry-After', () => {
  const d = statsAccess({ tier: 'free', createdMs: LATER }, current('season_stats'), LATER);
  assert.ok(!d.allowed);
  const forbidden = statsRefused(d.refusal);
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(Object.keys(forbidden.body).sort(), ['error', 'feature', 'sample_url', 'upgrade_url']);
  assert.equal(forbidden.body.feature, 'season_stats');
  assert.equal(forbidden.body.sample_url, '/api/v2/stats/sample');
  assert.match(String(forbidden.body.upgrade_url), /^https:\/\//);
  const u = statsAccess({ tier: 'pro', createdMs: Number.NaN }, current('season_stats'), LATER);
  assert.ok(!u.allowed);
  const unavailable = statsRefused(u.refusal);
  assert.equal(unavailable.statusCode, 503);
  assert.equal(unavailable.body.code, 'stats_policy_unsupported');
  assert.equal(typeof unavailable.body.message, 'string');
  assert.deepEqual(unavailable.headers, {});
});
