import { channelsOf, type Frame, type StreamChannel } from './frames.ts';
import type { Subscription } from './subscription.ts';

interface ChannelIndex {
  /** Subscriptions without a sport or event filter: every frame of the channel. */
  all: Set<Subscription>;
  bySport: Map<number, Set<Subscription>>;
  byEvent: Map<string, Set<Subscription>>;
  /** Subscriptions on the channel. */
  size: number;
}

/**
 * Every subscription of every connection, indexed by channel and then by event (when it names
 * events), by sport (when it names sports only), or in the channel's catch-all. A frame visits
 * the catch-all, its sport's set and its event's set: never every subscription. A subscription
 * sits in exactly one of those places per channel, so no frame reaches it twice.
 */
export class SubscriptionIndex {
  private readonly channels = new Map<StreamChannel, ChannelIndex>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(sub: Subscription): void {
    const idx = this.of(sub.channel);
    const { eventIds, sportIds } = sub.params;
    if (eventIds) for (const e of eventIds) setIn(idx.byEvent, e).add(sub);
    else if (sportIds) for (const s of sportIds) setIn(idx.bySport, s).add(sub);
    else idx.all.add(sub);
    idx.size++;
    this.count++;
  }

  /** Whether any subscription is on the channel: frames of a channel nobody takes need not be made. */
  has(channel: StreamChannel): boolean {
    return (this.channels.get(channel)?.size ?? 0) > 0;
  }

  remove(sub: Subscription): void {
    const idx = this.of(sub.channel);
    const { eventIds, sportIds } = sub.params;
    if (eventIds) for (const e of eventIds) removeFrom(idx.byEvent, e, sub);
    else if (sportIds) for (const s of sportIds) removeFrom(idx.bySport, s, sub);
    else idx.all.delete(sub);
    idx.size--;
    this.count--;
  }

  /** Calls `each` for every subscription the frame may concern on each of its channels. */
  visit(frame: Frame, each: (sub: Subscription, channel: StreamChannel) => void): void {
    for (const channel of channelsOf(frame)) {
      const idx = this.channels.get(channel);
      if (!idx) continue;
      for (const sub of idx.all) each(sub, channel);
      const bySport = idx.bySport.get(frame.sportId);
      if (bySport) for (const sub of bySport) each(sub, channel);
      const byEvent = idx.byEvent.get(frame.eventId);
      if (byEvent) for (const sub of byEvent) each(sub, channel);
    }
  }

  private of(channel: StreamChannel): ChannelIndex {
    let idx = this.channels.get(channel);
    if (!idx) {
      idx = { all: new Set(), bySport: new Map(), byEvent: new Map(), size: 0 };
      this.channels.set(channel, idx);
    }
    return idx;
  }
}

function setIn<K>(map: Map<K, Set<Subscription>>, key: K): Set<Subscription> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

function removeFrom<K>(map: Map<K, Set<Subscription>>, key: K, sub: Subscription): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(sub);
  if (set.size === 0) map.delete(key);
}
