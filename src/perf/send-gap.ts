import { PLAIN } from './switch.ts';

/**
 * The least time between two sends of a node's shared counter changes to Redis (`RedisCounters`,
 * src/access/counters/redis-counters.ts; configured by `counterSendGapMs` and
 * `counterFarSendGapMs`). Each send is a script call, its reply and a message to every node, about
 * a third of a millisecond of CPU in code that runs too seldom for V8 to optimise: sent as soon as
 * the previous one was answered, an API node under load sends one every request or two, a fifth of
 * an events snapshot's CPU; 20 ms apart still 6-7 µs a request at 2,600 requests a second.
 *
 * So the gap depends on what waits: `nearMs` (20 ms by default: 2% of a per-second window) while a
 * change that waits is near its counter's ceiling (`nearCeiling`) or sets a counter outright,
 * `farMs` (250 ms) otherwise. What gathers in the gap goes in one send, merged per counter; another
 * node sees a change up to the gap later, and a counter far from its ceiling is one whose lateness
 * decides nothing yet. A barrier (`settled`) or a catch-up goes at once.
 */
export interface SendGaps {
  nearMs: number;
  farMs: number;
}

/** The configured gaps (`farMs` at least `nearMs`); the plain twin, 0 and 0: each send as soon as the previous one is answered. */
export function counterSendGaps(nearMs: number, farMs: number): SendGaps {
  return PLAIN ? { nearMs: 0, farMs: 0 } : { nearMs, farMs: Math.max(nearMs, farMs) };
}

/**
 * Whether a counter at `value` (this node's view) is near `ceiling` (where its owner refuses, or
 * starts billing otherwise) with `nodes` nodes counting it: from `ceiling / (2 × nodes)` up to as
 * far past the ceiling. Below it, each node has counted less than its share of half the ceiling
 * (a node's view holds all its own counts), so what the nodes hold unseen by one another is under
 * half of it; a node that crosses into the band sends within a near gap and every near gap after,
 * its message puts every other node's view in the band too, and they follow. Past the band every node's
 * view is past the ceiling too, give or take a near gap's counts, so a late count no longer changes
 * what it decides.
 */
export function nearCeiling(value: number, ceiling: number, nodes: number): boolean {
  const margin = ceiling / (2 * nodes);
  return value >= margin && value < ceiling + margin;
}
