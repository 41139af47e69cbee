import type { FastifyRequest } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import type { Account } from '../access/authenticator.ts';
import type { StatsRequest } from '../access/stats-policy.ts';
import { ApiError, statsRefused } from '../projection/errors.ts';

/**
 * A rule a route applies per caller beyond the plan scope (the history window, the stats-access
 * policy): one object, asked by the handler when it answers and by the fast lane when it answers
 * the same URL again. A route applies its rules through `applyRule`, which records them on the
 * request; an answer kept from that request carries them (`rulesOf`), and the lane asks each of
 * them before it sends the answer. So a rule added to a handler is asked by the lane too: there is
 * nowhere else to state it.
 */
export interface CallerRule {
  /** The refusal `account` gets, or undefined when it may have the answer. */
  refusal(account: Account): ApiError | undefined;
}

const applied = new WeakMap<FastifyRequest, CallerRule[]>();
const NONE: readonly CallerRule[] = [];

/** Asks `rule` for the request's caller: throws its refusal, else records it for what is kept. */
export function applyRule(request: FastifyRequest, rule: CallerRule): void {
  const account = request.account;
  if (!account) return;
  const refusal = rule.refusal(account);
  if (refusal) throw refusal;
  const rules = applied.get(request);
  if (rules) rules.push(rule);
  else applied.set(request, [rule]);
}

/** The rules the request's answer was given under: what a kept answer asks of its next callers. */
export function rulesOf(request: FastifyRequest): readonly CallerRule[] {
  return applied.get(request) ?? NONE;
}

/** Whether every rule lets `account` have the answer. */
export function allows(rules: readonly CallerRule[], account: Account): boolean {
  for (const rule of rules) if (rule.refusal(account)) return false;
  return true;
}

/** A date outside the caller's history window: 403 with the earliest date it may ask for. */
export function historyWindow(access: AccessControl, dateMs: number): CallerRule {
  return {
    refusal(account) {
      const denial = access.checkHistoryWindow(account, dateMs);
      return denial && new ApiError(denial.status, denial.body, denial.headers);
    },
  };
}

/**
 * A stats feature the caller's account may not read under the stats-access policy: 403 with
 * `feature`, `upgrade_url` and `sample_url`, or 503 `stats_policy_unsupported`.
 */
export function statsPolicy(access: AccessControl, stats: StatsRequest): CallerRule {
  return {
    refusal(account) {
      const decision = access.statsAccess(account, stats);
      return decision.allowed ? undefined : statsRefused(decision.refusal);
    },
  };
}
