import fastJson from 'fast-json-stringify';
import type { EventState } from '../board/board.ts';
import { type EventFilter, filterKey, viewEvent } from '../board/views.ts';
import { EventSchema } from './schemas.ts';

const serializeEvent = fastJson(EventSchema);

interface CachedView {
  version: number;
  json: string;
  priceCount: number;
  marketCount: number;
  points: number;
}

/** Most distinct filters kept per event; past it the event's entries start over. */
const MAX_FILTERS_PER_EVENT = 32;
/** Bytes of whole responses kept, oldest out first. */
const MAX_RESPONSE_BYTES = 24 * 1024 * 1024;

export interface SerializedEvent {
  json: string;
  priceCount: number;
  marketCount: number;
  /** Data points of this event in a response (spec metering: events, scores, odds, live state). */
  points: number;
}

/** 1 events point + 1 scores point + 1 odds point per price, +1 scores point with live_game_state. */
export function eventPoints(priceCount: number, liveState: boolean): number {
  return 2 + priceCount + (liveState ? 1 : 0);
}

/**
 * Serialised bytes of event views, kept per event and filter and dropped when the event's version
 * (the id of the last change row that touched it) moves. Whole responses are kept too, keyed by
 * the request and the ledger head, so repeated polls between two commits cost one buffer copy.
 */
export class SnapshotCache {
  private readonly views = new WeakMap<EventState, Map<string, CachedView>>();
  private readonly responses = new Map<string, { head: number; body: Buffer; points: number }>();
  private responseBytes = 0;

  event(state: EventState, filter: EventFilter, key = filterKey(filter)): SerializedEvent {
    let perEvent = this.views.get(state);
    if (!perEvent) {
      perEvent = new Map();
      this.views.set(state, perEvent);
    }
    const hit = perEvent.get(key);
    if (hit && hit.version === state.version) {
      return hit;
    }
    const view = viewEvent(state, filter);
    const json = serializeEvent(view.event);
    if (perEvent.size >= MAX_FILTERS_PER_EVENT) perEvent.clear();
    const entry = {
      version: state.version,
      json,
      priceCount: view.priceCount,
      marketCount: view.event.markets.length,
      points: eventPoints(view.priceCount, view.event.live_game_state !== undefined),
    };
    perEvent.set(key, entry);
    return entry;
  }

  response(key: string, head: number): { body: Buffer; points: number } | undefined {
    const hit = this.responses.get(key);
    return hit && hit.head === head ? hit : undefined;
  }

  storeResponse(key: string, head: number, body: Buffer, points: number): void {
    const old = this.responses.get(key);
    if (old) {
      this.responses.delete(key);
      this.responseBytes -= old.body.length;
    }
    this.responses.set(key, { head, body, points });
    this.responseBytes += body.length;
    for (const [k, v] of this.responses) {
      if (this.responseBytes <= MAX_RESPONSE_BYTES) break;
      this.responses.delete(k);
      this.responseBytes -= v.body.length;
    }
  }
}
