/**
 * GET /api/v1/sports/4/events/{today} (full-game line sets of every book) on the real server, with
 * the live simulator on, against a bare node:http server that returns the same bytes: bench/events.ts
 * with the V1 path, so the same pinning, rounds, CPU accounting and medians.
 *
 *   node --import tsx bench/v1-events.ts [--rounds 5] [--duration 10] [--query QS] [--cpu-prof DIR]
 *                                        [--no-start-flags]
 *
 * Each V1 event is serialised once per change of the event (src/projection/v1-event.ts) and the whole
 * response once per change of the ledger head; the rest is the access layer and the socket.
 */
import { type EventsOptions, type EventsResult, eventsMarkdown, parseEventsArgs, runEvents } from './events.ts';
import { isMain, todayUtc } from './lib.ts';

interface V1Body {
  events: {
    lines: Record<
      string,
      { moneyline: Record<string, unknown>; spread: Record<string, unknown>; total: Record<string, unknown> }
    >;
  }[];
}

/** Prices in a V1 envelope: the price members of its line sets that are not the off-board sentinel. */
function countV1(body: unknown): { events: number; prices: number } {
  const { events } = body as V1Body;
  const priceKeys = /^(moneyline_(away|home|draw)|point_spread_(away|home)_money|total_(over|under)_money)$/;
  let prices = 0;
  const visit = (o: unknown): void => {
    if (Array.isArray(o)) o.forEach(visit);
    else if (o && typeof o === 'object') {
      for (const [k, v] of Object.entries(o)) {
        if (priceKeys.test(k) && v !== 0.0001) prices++;
        else visit(v);
      }
    }
  };
  for (const e of events) visit(e.lines);
  return { events: events.length, prices };
}

export function runV1Events(opts: EventsOptions = {}): Promise<EventsResult> {
  return runEvents({ ...opts, path: `/api/v1/sports/4/events/${todayUtc()}`, count: countV1 });
}

if (isMain(import.meta.url)) {
  const r = await runV1Events(parseEventsArgs(process.argv.slice(2)));
  process.stdout.write(`${eventsMarkdown(r)}\n`);
}
