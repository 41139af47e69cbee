import type { PlanScope } from '../access/plan-scope.ts';
import type { BoardView } from '../board/board-view.ts';
import type { EventState } from '../board/event-state.ts';
import { boardMatches, viewFutures } from '../board/futures-view.ts';
import { type EventFilter, eventPoints, viewEvent } from '../projection/event-view.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { withLiveVariants } from '../catalog/markets.ts';
import { serializeEvent } from '../projection/event-json.ts';
import { eventStatus } from '../projection/event-query.ts';
import { MAX_PLAYS } from '../projection/params.ts';
import type { Store } from '../store/store.ts';
import { SnapshotError } from './errors.ts';
import type { Subscription } from './subscription.ts';

/** One snapshot message and the data points it costs (spec: like the equivalent REST read). */
export interface SnapshotMessage {
  text: string;
  points: number;
}

export interface SnapshotSource {
  /** The live board: stream plans are real-time. */
  view: BoardView;
  readPlays: Store['readPlays'];
  /** The current catalog: a sport's default markets, the names of markets. */
  catalog: Pick<Catalog, 'defaultMarketIds' | 'marketName'>;
}

/** What a snapshot holds besides its messages: the last play sequence of each event it covered. */
export interface Snapshot {
  messages: SnapshotMessage[];
  playsUpTo: Map<string, number>;
}

/**
 * The snapshot of a subscription (spec: Snapshot rules), as of the board's head when called: every
 * read of the board happens before the first await, so the snapshot is exactly the state at that
 * head and the live deltas after it continue it. Plays are read from the store after that, up to
 * the sequence the board had then.
 */
export async function takeSnapshot(src: SnapshotSource, sub: Subscription, positionJson: string): Promise<Snapshot> {
  const p = sub.params;
  const ch = sub.channel;
  if (ch === 'stats') {
    throw new SnapshotError(
      'unsupported_snapshot',
      'the stats channel has no snapshot: fetch team and player stats from REST',
    );
  }
  const head = `{"type":"snapshot","id":${sub.idJson},"channel":"${ch}","position":${positionJson}`;
  if (ch === 'futures') return { messages: futuresSnapshot(src.view, sub, head), playsUpTo: new Map() };
  if (ch === 'plays' && !p.eventIds) {
    throw new SnapshotError('unbounded_scope', 'a plays snapshot needs event_ids');
  }
  if (!p.eventIds && !(p.sportIds && p.window)) {
    throw new SnapshotError('unbounded_scope', 'a snapshot needs event_ids, or sport_ids with date');
  }
  const events = eventsInScope(src.view, sub);
  const messages: SnapshotMessage[] = [];
  const playsUpTo = new Map<string, number>();
  for (const ev of events) {
    const id = JSON.stringify(ev.info.event_id);
    switch (ch) {
      case 'markets': {
        const filter = marketsFilter(sub.scope, sub, ev.info.sport_id, src.catalog);
        const view = viewEvent(ev, filter, src.catalog);
        const returned = [...new Set(view.event.markets.map((m) => m.market_id))].sort((a, b) => a - b);
        const scope = `{"requested_market_ids":${JSON.stringify([...filter.marketIds].sort((a, b) => a - b))},"returned_market_ids":${JSON.stringify(returned)}}`;
        messages.push({
          text: `${head},"event_id":${id},"scope":${scope},"data":${serializeEvent(view.event)}}`,
          points: eventPoints(view.priceCount, view.event.live_game_state !== undefined),
        });
        break;
      }
      case 'scores':
        messages.push({
          text: `${head},"event_id":${id},"data":${JSON.stringify({ event_id: ev.info.event_id, sport_id: ev.info.sport_id, score: ev.info.score ?? null })}}`,
          points: 2,
        });
        break;
      case 'live':
      case 'live_game_state':
      case 'game_state': {
        const info = ev.info;
        const state = info.live_game_state ?? null;
        const data =
          ch === 'live'
            ? {
                event_id: info.event_id,
                sport_id: info.sport_id,
                event_status: info.score?.event_status ?? 'STATUS_SCHEDULED',
                score: info.score ?? null,
                live_game_state: state,
              }
            : { event_id: info.event_id, sport_id: info.sport_id, live_game_state: state };
        messages.push({ text: `${head},"event_id":${id},"data":${JSON.stringify(data)}}`, points: state ? 3 : 2 });
        break;
      }
      case 'plays':
        playsUpTo.set(ev.info.event_id, ev.game?.plays ?? 0);
        break;
    }
  }
  if (ch === 'plays') {
    const limit = p.playsLimit ?? MAX_PLAYS;
    messages.push(...(await playMessages(src, head, playsUpTo, (last) => Math.max(1, last - limit + 1))));
  }
  return { messages, playsUpTo };
}

/**
 * The plays of `upTo`'s events (the last sequence of each), from the sequence `fromOf` gives, as the
 * plays snapshot's frames: newest first with the cursor of what they hold (null when none).
 */
async function playMessages(
  src: SnapshotSource,
  head: string,
  upTo: ReadonlyMap<string, number>,
  fromOf: (last: number, eventId: string) => number,
  extraOf: (eventId: string) => string = () => '',
): Promise<SnapshotMessage[]> {
  const messages: SnapshotMessage[] = [];
  for (const [eventId, last] of upTo) {
    const from = fromOf(last, eventId);
    const count = Math.max(0, last - from + 1);
    const plays = count > 0 ? await src.readPlays(eventId, from, last) : Buffer.alloc(0);
    const cursor = count > 0 ? `{"oldest_sequence":${from},"newest_sequence":${last}}` : 'null';
    messages.push({
      text: `${head},"event_id":${JSON.stringify(eventId)}${extraOf(eventId)},"cursor":${cursor},"data":[${plays.toString('utf8')}]}`,
      points: count,
    });
  }
  return messages;
}

/**
 * A plays resume by sequence (`params.resume.plays`: the last sequence the client holds per event):
 * for each event a frame in the plays snapshot's shape, marked `resumed_after`, with the plays after
 * that sequence, as of the board's head when called (read before the first await, as a snapshot).
 * An event not on the board, a sequence ahead of the event's plays or more than the snapshot's 500
 * plays behind cannot be resumed: `snapshot_required`.
 */
export async function takePlaysResume(
  src: SnapshotSource,
  sub: Subscription,
  positionJson: string,
  after: ReadonlyMap<string, number>,
): Promise<Snapshot> {
  const playsUpTo = new Map<string, number>();
  for (const [eventId, sequence] of after) {
    const ev = src.view.getEvent(eventId);
    if (!ev) throw new SnapshotError('snapshot_required', `event ${eventId} is not on this server's board`);
    const last = ev.game?.plays ?? 0;
    if (sequence > last)
      throw new SnapshotError('snapshot_required', `play ${sequence} of ${eventId} is ahead of its plays (${last})`);
    if (last - sequence > MAX_PLAYS) {
      throw new SnapshotError(
        'snapshot_required',
        `play ${sequence} of ${eventId} is more than ${MAX_PLAYS} plays behind (${last})`,
      );
    }
    playsUpTo.set(eventId, last);
  }
  const head = `{"type":"snapshot","id":${sub.idJson},"channel":"${sub.channel}","position":${positionJson}`;
  const messages = await playMessages(
    src,
    head,
    playsUpTo,
    (_, eventId) => after.get(eventId)! + 1,
    (eventId) => `,"resumed_after":${after.get(eventId)!}`,
  );
  return { messages, playsUpTo };
}

/**
 * REST defaults (spec): market_ids 1,2,3 (and 563 for soccer and hockey: a sport whose catalog
 * record says 3-way) with their live variants.
 */
function marketsFilter(
  scope: PlanScope,
  sub: Subscription,
  sportId: number,
  catalog: Pick<Catalog, 'defaultMarketIds'>,
): EventFilter & { marketIds: ReadonlySet<number> } {
  const p = sub.params;
  const requested = p.requestedMarketIds ?? catalog.defaultMarketIds(sportId);
  return {
    marketIds: new Set(scope.marketIdsFor(withLiveVariants(requested))),
    affiliateIds: p.affiliateIds,
    periodIds: scope.periods,
    mainLine: p.mainLine,
    participantIds: null,
    participantType: p.participantType ?? null,
    hideClosed: false,
    includePriceDelta: false,
    liveGameState: scope.liveGameState,
  };
}

/**
 * Events named by event_ids (within sport_ids and date when given), or those of sport_ids on the
 * date; with event_status, those whose status is one of it.
 */
function eventsInScope(view: BoardView, sub: Subscription): EventState[] {
  const p = sub.params;
  const inWindow = (ev: EventState) => !p.window || (ev.startMs >= p.window[0] && ev.startMs < p.window[1]);
  const statuses = p.eventStatuses;
  let out: EventState[];
  if (p.eventIds) {
    out = [];
    for (const id of p.eventIds) {
      const ev = view.getEvent(id);
      if (ev && (!p.sportIds || p.sportIds.has(ev.info.sport_id)) && inWindow(ev)) out.push(ev);
    }
  } else {
    const [from, to] = p.window!;
    out = [...p.sportIds!].flatMap((sport) => view.eventsInWindow(sport, from, to));
  }
  return statuses ? out.filter((ev) => statuses.has(eventStatus(ev))) : out;
}

/** Spec: positive sport_ids, no date; event_ids only with exactly one sport. One frame per sport, as REST lists. */
function futuresSnapshot(view: BoardView, sub: Subscription, head: string): SnapshotMessage[] {
  const p = sub.params;
  if (!p.sportIds || p.sportIds.size === 0 || [...p.sportIds].some((s) => s <= 0)) {
    throw new SnapshotError('unbounded_scope', 'a futures snapshot needs positive sport_ids');
  }
  if (p.date !== undefined) throw new SnapshotError('invalid_scope', 'a futures snapshot takes no date');
  if (p.eventIds && p.sportIds.size !== 1) {
    throw new SnapshotError('invalid_scope', 'futures event_ids need exactly one sport in sport_ids');
  }
  const filter = { marketIds: p.marketIds, affiliateIds: p.affiliateIds };
  return [...p.sportIds].map((sportId) => {
    let prices = 0;
    const boards = view
      .futuresOfSport(sportId)
      .filter(
        (b) =>
          b.settlement.state === 'open' &&
          (!p.eventIds || p.eventIds.has(b.header.event_id)) &&
          boardMatches(b, filter),
      )
      .map((b) => {
        const v = viewFutures(b, filter);
        prices += v.prices;
        return v.board;
      });
    return {
      text: `${head},"sport_id":${sportId},"data":${JSON.stringify({ sport_id: sportId, futures: boards })}}`,
      points: boards.length + prices,
    };
  });
}
