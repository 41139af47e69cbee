import type { OddsbaseClient, EventParams } from './client.ts';
import { BootstrapError, CursorRejectedError } from './errors.ts';
import { logicalMarketId, withInPlayVariants } from './market-families.ts';
import type { Reply } from './transport.ts';
import type { DeltaRow, Event, EventsEnvelope } from './types.ts';

/**
 * One cached price: the latest row of one book on one participant of one logical market of one
 * event (spec: the consumer locates the entry by event, market, participant and affiliate and
 * replaces it entirely). A prematch row and its in-play twin share the entry.
 */
export interface CachedPrice {
  event_id: string;
  /** The prematch id of the pair. */
  logical_market_id: number;
  /** The id the row came with (an in-play id for live rows). */
  market_id: number;
  participant_id: number;
  participant_type: string;
  participant_name: string;
  affiliate_id: number;
  line: string;
  /** American odds as the server sent them (a string on delta rows); 0.0001 is off the board. */
  price: number;
  is_main_line: boolean;
  /** Empty while the line is active. */
  closed_at: string;
  updated_at: string;
}

/**
 * Where the consumer takes its snapshots: a sport's day, named events, or snapshots the caller
 * takes itself (`source`: e.g. several sports and days, in groups of markets), whose rows of every
 * event are in scope.
 */
export type SnapshotScope =
  | { sportId: number; date: string }
  | { eventIds: readonly string[] }
  | { source: (signal?: AbortSignal) => Promise<Reply<EventsEnvelope>[]> };

export interface MarketsDeltaOptions {
  scope: SnapshotScope;
  /** Logical (prematch) market ids; their in-play variants are added to the delta filter. */
  marketIds?: readonly number[];
  affiliateIds?: readonly number[];
  /** Delta rows per request (default 1000, at most 5000). */
  limit?: number;
  /** Snapshot parameters besides markets and books (e.g. main_line). */
  snapshotParams?: Omit<EventParams, 'market_ids' | 'affiliate_ids'>;
  /**
   * The spec bootstraps only from a snapshot known to be undelayed (`X-Data-Delay-Seconds: 0`).
   * A delayed plan's snapshot is refused unless this is set.
   */
  acceptDelayedSnapshot?: boolean;
}

export interface PollResult {
  /** Rows applied, in cursor order. */
  rows: DeltaRow[];
  /** True when the cursor was refused (too far behind) and the cache was rebuilt from a snapshot. */
  resynced: boolean;
  cursor: string;
}

export const cacheKey = (eventId: string, marketId: number, participantId: number, affiliateId: number): string =>
  `${eventId}|${logicalMarketId(marketId)}|${participantId}|${affiliateId}`;

/**
 * The markets delta done as the spec says: bootstrap from an undelayed snapshot's positive
 * `meta.delta_last_id` (never 0 in its place), keep each response's cursor, page while `has_more`,
 * and when the cursor is refused as too far behind, rebuild from a fresh snapshot.
 */
export class MarketsDeltaConsumer {
  private readonly entries = new Map<string, CachedPrice>();
  private readonly eventsById = new Map<string, Event>();
  private lastId: string | undefined;
  private logEpoch: string | undefined;

  constructor(
    private readonly client: OddsbaseClient,
    private readonly opts: MarketsDeltaOptions,
  ) {}

  /** The cursor the next poll sends; undefined before bootstrap. */
  get cursor(): string | undefined {
    return this.lastId;
  }

  /**
   * The epoch of the log the cursor belongs to (`meta.epoch` of the delta answers): undefined
   * until the first poll after a bootstrap, since a snapshot does not name it.
   */
  get epoch(): string | undefined {
    return this.logEpoch;
  }

  /**
   * Moves the cursor on to a position of the same log whose rows the caller took by other means
   * (a stream's deltas), so the next poll goes on from there; the cache does not take them. Never
   * moves it back.
   */
  advance(cursor: string): void {
    if (this.lastId !== undefined && BigInt(cursor) > BigInt(this.lastId)) this.lastId = cursor;
  }

  /** Every cached price. */
  prices(): IterableIterator<CachedPrice> {
    return this.entries.values();
  }

  price(eventId: string, marketId: number, participantId: number, affiliateId: number): CachedPrice | undefined {
    return this.entries.get(cacheKey(eventId, marketId, participantId, affiliateId));
  }

  /** The events of the last snapshot (headers, teams, scores as they were then). */
  events(): IterableIterator<Event> {
    return this.eventsById.values();
  }

  /** Fetches the snapshot(s), fills the cache and takes the cursor from the snapshot. */
  async bootstrap(signal?: AbortSignal): Promise<void> {
    const replies = await this.snapshot(signal);
    const cursors = replies.map((r) => this.checkedCursor(r));
    this.entries.clear();
    this.eventsById.clear();
    for (const r of replies) for (const e of r.data.events) this.addEvent(e);
    // Several snapshots: the oldest cursor, so that no change after any of them is missed
    // (a row applied twice is harmless: entries are replaced whole).
    this.lastId = cursors.reduce((a, b) => (BigInt(a) <= BigInt(b) ? a : b));
    this.logEpoch = undefined;
  }

  /**
   * Reads every page the server has after the cursor (while `has_more`), applying each row. A
   * refused cursor, or a change of the log's epoch, rebuilds the cache from a fresh snapshot.
   */
  async poll(signal?: AbortSignal): Promise<PollResult> {
    if (this.lastId === undefined) await this.bootstrap(signal);
    const rows: DeltaRow[] = [];
    for (;;) {
      let page;
      try {
        page = await this.client.marketsDelta(
          {
            last_id: this.lastId!,
            market_ids: this.opts.marketIds ? withInPlayVariants(this.opts.marketIds) : undefined,
            affiliate_ids: this.opts.affiliateIds,
            sport_id: 'sportId' in this.opts.scope ? this.opts.scope.sportId : undefined,
            event_id:
              'eventIds' in this.opts.scope && this.opts.scope.eventIds.length === 1
                ? this.opts.scope.eventIds[0]
                : undefined,
            limit: this.opts.limit,
          },
          { signal },
        );
      } catch (err) {
        if (!(err instanceof CursorRejectedError)) throw err;
        await this.bootstrap(signal);
        return { rows, resynced: true, cursor: this.lastId! };
      }
      const { meta, deltas } = page.data;
      if (this.logEpoch !== undefined && meta.epoch !== this.logEpoch) {
        // Another log: the cursor names other rows there.
        await this.bootstrap(signal);
        return { rows, resynced: true, cursor: this.lastId! };
      }
      this.logEpoch = meta.epoch;
      for (const row of deltas) {
        if (this.inScope(row)) {
          this.apply(row);
          rows.push(row);
        }
      }
      this.lastId = meta.delta_last_id;
      if (!meta.has_more) return { rows, resynced: false, cursor: this.lastId };
    }
  }

  /** Replaces the row's entry whole. */
  apply(row: DeltaRow): void {
    this.entries.set(cacheKey(row.event_id, row.market_id, row.participant_id, row.affiliate_id), {
      event_id: row.event_id,
      logical_market_id: logicalMarketId(row.market_id),
      market_id: row.market_id,
      participant_id: row.participant_id,
      participant_type: row.participant_type,
      participant_name: row.participant_name,
      affiliate_id: row.affiliate_id,
      line: row.line,
      price: Number(row.price),
      is_main_line: row.is_main_line,
      closed_at: row.closed_at,
      updated_at: row.updated_at,
    });
  }

  private inScope(row: DeltaRow): boolean {
    const s = this.opts.scope;
    if ('source' in s) return true;
    if ('eventIds' in s) return s.eventIds.includes(row.event_id);
    // A sport's day: rows of events outside the snapshot are other days' events.
    return this.eventsById.has(row.event_id);
  }

  private async snapshot(signal?: AbortSignal): Promise<Reply<EventsEnvelope>[]> {
    const q: EventParams = {
      ...this.opts.snapshotParams,
      market_ids: this.opts.marketIds,
      affiliate_ids: this.opts.affiliateIds,
    };
    const s = this.opts.scope;
    if ('source' in s) return s.source(signal);
    if ('sportId' in s) return [await this.client.events(s.sportId, s.date, q, { signal })];
    const out: Reply<EventsEnvelope>[] = [];
    for (const id of s.eventIds) out.push(await this.client.event(id, q, { signal }));
    return out;
  }

  private checkedCursor(r: Reply<EventsEnvelope>): string {
    const delay = r.plan.dataDelaySeconds;
    if (delay !== 0 && !this.opts.acceptDelayedSnapshot) {
      throw new BootstrapError(
        delay === undefined
          ? 'the snapshot does not say its data delay (X-Data-Delay-Seconds): it is not known to be undelayed'
          : `the snapshot is ${delay} s delayed: the markets delta bootstraps from an undelayed snapshot`,
      );
    }
    const c = r.data.meta?.delta_last_id;
    if (typeof c !== 'string' || !/^[1-9]\d*$/.test(c)) {
      throw new BootstrapError(
        `the snapshot's meta.delta_last_id (${JSON.stringify(c)}) is not a positive integer cursor`,
      );
    }
    return c;
  }

  private addEvent(e: Event): void {
    this.eventsById.set(e.event_id, e);
    for (const m of e.markets) {
      for (const p of m.participants) {
        for (const line of p.lines) {
          for (const [book, price] of Object.entries(line.prices)) {
            const affiliateId = Number(book);
            const key = cacheKey(e.event_id, m.market_id, p.id, affiliateId);
            const held = this.entries.get(key);
            // One entry per book and participant: the main line wins over alternates, then the
            // newer of a prematch price and its in-play twin.
            if (
              held && held.is_main_line !== price.is_main_line
                ? held.is_main_line
                : held && held.updated_at > price.updated_at
            )
              continue;
            this.entries.set(key, {
              event_id: e.event_id,
              logical_market_id: logicalMarketId(m.market_id),
              market_id: m.market_id,
              participant_id: p.id,
              participant_type: p.type,
              participant_name: p.name,
              affiliate_id: affiliateId,
              line: line.value,
              price: price.price,
              is_main_line: price.is_main_line,
              closed_at: price.closed_at ?? '',
              updated_at: price.updated_at,
            });
          }
        }
      }
    }
  }
}
