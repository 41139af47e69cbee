import type { OddsbaseClient } from './client.ts';
import { CursorRejectedError, ProtocolError } from './errors.ts';
import type { Event } from './types.ts';

export interface EventDeltaOptions {
  sportId?: number;
  /** Events per request (default 100, at most 500). */
  limit?: number;
  /**
   * Seeds the cache after the cursor is taken (e.g. an events snapshot of the day). Events that
   * change meanwhile come again in the first poll, whole, so nothing is lost between the two.
   */
  seed?: (signal?: AbortSignal) => Promise<Event[]>;
}

export interface EventPollResult {
  /** Events replaced, in the order of their latest change. */
  events: Event[];
  resynced: boolean;
  cursor: string;
}

/**
 * The changed-events feed (`/api/v2/delta`): a UUID cursor of its own (an events snapshot's
 * integer cursor bootstraps the markets delta only), each item a full event that replaces the
 * cached one. The first cursor is the one an empty call returns (the newest change); a refused
 * cursor takes a new one and seeds again.
 */
export class EventDeltaConsumer {
  private readonly byId = new Map<string, Event>();
  private lastId: string | undefined;
  private epoch: string | undefined;

  constructor(
    private readonly client: OddsbaseClient,
    private readonly opts: EventDeltaOptions = {},
  ) {}

  get cursor(): string | undefined {
    return this.lastId;
  }

  event(eventId: string): Event | undefined {
    return this.byId.get(eventId);
  }

  events(): IterableIterator<Event> {
    return this.byId.values();
  }

  async bootstrap(signal?: AbortSignal): Promise<void> {
    const head = await this.client.eventDelta({ sport_id: this.opts.sportId }, { signal });
    this.lastId = head.data.meta.delta_last_id;
    this.epoch = head.data.meta.epoch;
    this.byId.clear();
    if (this.opts.seed) for (const e of await this.opts.seed(signal)) this.byId.set(e.event_id, e);
  }

  async poll(signal?: AbortSignal): Promise<EventPollResult> {
    if (this.lastId === undefined) await this.bootstrap(signal);
    const changed: Event[] = [];
    for (;;) {
      let page;
      try {
        page = await this.client.eventDelta(
          { last_id: this.lastId, sport_id: this.opts.sportId, limit: this.opts.limit },
          { signal },
        );
      } catch (err) {
        if (!(err instanceof CursorRejectedError)) throw err;
        await this.bootstrap(signal);
        return { events: changed, resynced: true, cursor: this.lastId! };
      }
      const { meta, deltas } = page.data;
      if (meta.epoch !== this.epoch) {
        await this.bootstrap(signal);
        return { events: changed, resynced: true, cursor: this.lastId! };
      }
      for (const item of deltas) {
        let event: Event;
        try {
          event = JSON.parse(item.json) as Event;
        } catch {
          throw new ProtocolError(`/api/v2/delta item ${item.id}: json is not JSON`);
        }
        this.byId.set(item.event_id, event);
        changed.push(event);
      }
      this.lastId = meta.delta_last_id;
      if (!meta.has_more) return { events: changed, resynced: false, cursor: this.lastId };
    }
  }
}
