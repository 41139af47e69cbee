import { type Tier, isTier, tierAtLeast, tierLabel } from '../catalog/tiers.ts';

/**
 * The stats-access policy (spec, Authentication 6): accounts created on or after
 * 2026-09-07T18:00:00Z get the stats features of their plan; accounts created before keep legacy
 * access, every stats feature; a new Free account gets seven days of current-season completed box
 * scores from its creation. Every stats route asks `statsAccess` and nothing else.
 */

/** Accounts created at or after this instant follow the new policy. */
export const NEW_STATS_POLICY_FROM = Date.parse('2026-09-07T18:00:00Z');

/** How long a new Free account may read current-season completed box scores. */
export const FREE_EVALUATION_MS = 7 * 86_400_000;

/** Where a refused client can see the shape of a box score without the feature. */
export const STATS_SAMPLE_PATH = '/api/v2/stats/sample';

/**
 * The features the policy gates, as the 403's `feature` names them: box scores of finished games,
 * box scores of games in progress (live values), and season aggregates of teams and players.
 */
export const STATS_FEATURES = ['completed_box_scores', 'live_game_stats', 'season_stats'] as const;
export type StatsFeature = (typeof STATS_FEATURES)[number];

/** The lowest tier with each feature under the new policy (docs/spec-gaps.md). */
export const NEW_POLICY_MINIMUM: Readonly<Record<StatsFeature, Tier>> = {
  completed_box_scores: 'starter',
  season_stats: 'pro',
  live_game_stats: 'ultra',
};

const FEATURE_TEXT: Readonly<Record<StatsFeature, string>> = {
  completed_box_scores: 'Completed box scores',
  live_game_stats: 'Live game stats',
  season_stats: 'Season stats',
};

/** What the policy reads of an account: its plan and when it was created (NaN when unknown). */
export interface StatsAccount {
  tier: string;
  createdMs: number;
}

/** What is asked for: a feature, and whether the data belongs to the sport's current season. */
export interface StatsRequest {
  feature: StatsFeature;
  currentSeason: boolean;
}

export type StatsBasis = 'legacy' | 'plan' | 'evaluation';

export type StatsRefusal =
  /** The plan lacks the feature: not retryable, upgrading helps. */
  | { kind: 'entitlement'; feature: StatsFeature; minimum: Tier; message: string }
  /** The account's plan or creation date cannot be read: retry later, not an entitlement denial. */
  | { kind: 'unsupported'; message: string };

export type StatsDecision = { allowed: true; basis: StatsBasis } | { allowed: false; refusal: StatsRefusal };

/** True when an account created at `createdMs` follows the new policy. */
export function followsNewStatsPolicy(createdMs: number): boolean {
  return createdMs >= NEW_STATS_POLICY_FROM;
}

/** Decides whether `account` may read `request` at `now` (ms). */
export function statsAccess(account: StatsAccount, request: StatsRequest, now: number): StatsDecision {
  const { tier, createdMs } = account;
  if (!isTier(tier) || !Number.isFinite(createdMs)) {
    return {
      allowed: false,
      refusal: {
        kind: 'unsupported',
        message: isTier(tier)
          ? 'The stats-access policy cannot be resolved: the account has no creation date'
          : 'The stats-access policy cannot be resolved: the account has an unknown plan',
      },
    };
  }
  if (!followsNewStatsPolicy(createdMs)) return { allowed: true, basis: 'legacy' };
  const { feature } = request;
  const minimum = NEW_POLICY_MINIMUM[feature];
  if (tierAtLeast(tier, minimum)) return { allowed: true, basis: 'plan' };
  const evaluation = tier === 'free' && feature === 'completed_box_scores';
  const evaluationOver = now >= createdMs + FREE_EVALUATION_MS;
  if (evaluation && !evaluationOver && request.currentSeason) return { allowed: true, basis: 'evaluation' };
  const note = !evaluation
    ? ''
    : evaluationOver
      ? '; the Free evaluation of current-season box scores has ended'
      : '; the Free evaluation covers current-season games only';
  return {
    allowed: false,
    refusal: {
      kind: 'entitlement',
      feature,
      minimum,
      message: `${FEATURE_TEXT[feature]} require ${tierLabel(minimum)} plan or higher${note}`,
    },
  };
}
