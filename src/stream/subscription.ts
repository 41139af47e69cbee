import type { PlanScope } from '../access/plan-scope.ts';
import type { EventState } from '../board/event-state.ts';
import type { EventStatus, ParticipantType } from '../domain/types.ts';
import { eventStatus } from '../projection/event-query.ts';
import type { LogPosition } from '../changelog/change.ts';
import { type Frame, FuturesFrame, MarketFrame, type StreamChannel } from './frames.ts';
import { LineFrame } from './line-frames.ts';

/** A subscription's filters, parsed and checked against the plan (protocol.ts makes them). */
export interface SubscriptionParams {
  /** null: every sport. */
  sportIds: ReadonlySet<number> | null;
  /** null: every event. */
  eventIds: ReadonlySet<string> | null;
  /** The market ids as the client sent them (before the live variants); undefined: none sent. */
  requestedMarketIds: readonly number[] | undefined;
  /** The market ids delivered, live variants added; null: every market. */
  marketIds: ReadonlySet<number> | null;
  /** The books asked for within the plan's; null: every book. */
  affiliateIds: ReadonlySet<number> | null;
  /** Only main-line rows (spec: snapshot rule 4). */
  mainLine: boolean;
  /** Markets: only rows and snapshot participants of this type. */
  participantType?: ParticipantType;
  /** Only events whose status (as the board holds it when a frame is sent) is one of these. */
  eventStatuses?: ReadonlySet<EventStatus>;
  /** Plays: the most plays per event a snapshot sends (spec: up to 500). */
  playsLimit?: number;
  snapshot: boolean;
  /** `date` as epoch ms of its midnight UTC, and the day window with `offset` applied. */
  date?: number;
  window?: readonly [number, number];
  offset: number;
  /** The V1 stream's `period`: the V1 period ids of the line sets sent; absent: every period. */
  linePeriods?: ReadonlySet<number>;
  /** Past the queue, keep the latest price per line and book instead of closing. */
  conflate: boolean;
  resumeFrom?: LogPosition;
  /** Plays: resume each event after the sequence given (`resume: {plays: {event_id: sequence}}`). */
  resumePlays?: ReadonlyMap<string, number>;
}

/** Where a subscription's messages go: its connection's queue. */
export interface Outbox {
  deliver(sub: Subscription, frame: Frame): void;
}

/**
 * One subscription of a connection: a channel, its filters and the plan's scope. Frames reach it
 * through the index (by sport, by event, or every frame of the channel); `matches` applies the rest.
 *
 * States: `held` is non-null while a snapshot or a replay is made; live frames wait there and are
 * released, those at or below the snapshot's position dropped, once it is sent (snapshot_complete
 * or resume_complete). `closed` once unsubscribed or its connection ended.
 */
export class Subscription {
  /** sub_sequence of the last delta sent (spec: from 1). */
  sequence = 0;
  /** Its messages waiting in the connection's queue. */
  pending = 0;
  /** Conflated prices waiting, the latest per market_line_price id. */
  conflated: Map<number, MarketFrame> | undefined;
  held: Frame[] | null = null;
  /** A resume is replaying: held frames past the queue are dropped, to be read from the log again. */
  resuming = false;
  /** Held frames were dropped while resuming: the replay goes on to the head it finds next. */
  heldLost = false;
  closed = false;
  readonly idJson: string;

  constructor(
    readonly outbox: Outbox,
    /** The client's id; '' on the dedicated streams (markets, V1). */
    readonly id: string,
    readonly channel: StreamChannel,
    readonly params: SubscriptionParams,
    readonly scope: PlanScope,
    /** A dedicated stream's subscription (markets, V1): messages in the stream's own envelope. */
    readonly dedicated: boolean,
    /** An event as the board holds it, for a subscription scoped to a date or to statuses. */
    private readonly eventOf: (eventId: string) => EventState | undefined,
  ) {
    this.idJson = JSON.stringify(id);
  }

  /** Whether the frame passes this subscription's filters and its plan's scope. */
  matches(frame: Frame): boolean {
    const p = this.params;
    if (p.sportIds && !p.sportIds.has(frame.sportId)) return false;
    if (p.eventIds && !p.eventIds.has(frame.eventId)) return false;
    if (frame instanceof MarketFrame) {
      if (frame.quoteUnchanged) return false;
      if (p.mainLine && (!frame.isMainLine || frame.designationOnly)) return false;
      if (p.participantType && frame.participantType !== p.participantType) return false;
      if (p.marketIds && !p.marketIds.has(frame.marketId)) return false;
      if (p.affiliateIds && !p.affiliateIds.has(frame.affiliateId)) return false;
      const s = this.scope;
      if (!s.coversBook(frame.affiliateId) || !s.coversPeriod(frame.periodId) || !s.coversMarket(frame.marketId)) {
        return false;
      }
    } else if (frame instanceof FuturesFrame) {
      if (frame.affiliateId !== null) {
        if (p.affiliateIds && !p.affiliateIds.has(frame.affiliateId)) return false;
        if (!this.scope.coversBook(frame.affiliateId)) return false;
      }
      if (frame.marketId !== null && p.marketIds && !p.marketIds.has(frame.marketId)) return false;
      return true;
    } else if (frame instanceof LineFrame) {
      if (p.affiliateIds && !p.affiliateIds.has(frame.affiliateId)) return false;
      if (p.linePeriods && !p.linePeriods.has(frame.periodId)) return false;
      return frame.coveredBy(this.scope);
    }
    if (p.window || p.eventStatuses) {
      const ev = this.eventOf(frame.eventId);
      if (!ev) return false;
      if (p.window && (ev.startMs < p.window[0] || ev.startMs >= p.window[1])) return false;
      if (p.eventStatuses && !p.eventStatuses.has(eventStatus(ev))) return false;
    }
    return true;
  }
}
