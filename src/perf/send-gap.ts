import { PLAIN } from './switch.ts';

/**
 * The least time between two sends of a node's shared counter changes to Redis (`sendGapMs` of
 * `RedisCounters`, src/access/counters/redis-counters.ts; configured by `counterSendGapMs`). Each
 * send is a script call, its reply and a message to every node: sent as soon as the previous one
 * was answered, an API node under load sends one every request or two, and they cost it a fifth of
 * an events snapshot's CPU. Kept apart, what gathers in the gap goes in one send, merged per
 * counter; another node sees a change up to the gap later (20 ms by default: 2% of a per-second
 * window). A barrier (`settled`) or a catch-up goes at once. The plain twin, 0: each send as soon as
 * the previous one is answered.
 */
export function counterSendGap(configuredMs: number): number {
  return PLAIN ? 0 : configuredMs;
}
