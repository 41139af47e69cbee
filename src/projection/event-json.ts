import fastJson from 'fast-json-stringify';
import type { EventState } from '../board/event-state.ts';
import { type EventJson, eventTextWriter, type MarketNames } from '../perf/event-text.ts';
import { pick } from '../perf/switch.ts';
import { type EventFilter, marketShown, participantShown, priceShown, viewEvent } from './event-view.ts';
import { EventSchema } from './schemas.ts';

export type { EventJson } from '../perf/event-text.ts';

export const serializeEvent = fastJson(EventSchema);

/** The plain twin: the filter's view of the event (event-view.ts) through the schema's serialiser. */
export function plainEventJson(state: EventState, f: EventFilter, names: MarketNames): EventJson {
  const view = viewEvent(state, f, names);
  return {
    json: serializeEvent(view.event),
    priceCount: view.priceCount,
    marketCount: view.event.markets.length,
    liveState: view.event.live_game_state !== undefined,
  };
}

/** The trick (perf/event-text.ts): the same bytes written straight from the board. */
export const eventText = eventTextWriter<EventFilter>(
  {
    market: marketShown,
    participant: participantShown,
    price: priceShown,
    includeDelta: (f) => f.includePriceDelta,
    liveGameState: (f) => f.liveGameState,
  },
  serializeEvent,
);

/** The event as the filter shows it (event-view.ts `viewEvent`, with current prices), as JSON. */
export const eventJson: (state: EventState, f: EventFilter, names: MarketNames) => EventJson = pick(
  eventText.eventJson,
  plainEventJson,
);
