import {
  CursorRejectedError,
  type DeltaRow,
  type MarketPrice,
  type OddsbaseClient,
  withInPlayVariants,
} from '../../packages/client/src/index.ts';

/** How often a plan without streams asks the markets delta for changes. */
const POLL_MS = 5000;
/** How often it reads the whole snapshot again, for scores and new events (the delta has prices only). */
const REFRESH_MS = 5 * 60_000;
/** The same while the day shows no event yet (a delayed plan sees new events late). */
const EMPTY_REFRESH_MS = 30_000;

const PARTICIPANT_TYPE: Record<string, number> = { TYPE_TEAM: 1, TYPE_PLAYER: 2, TYPE_RESULT: 3 };

/** A markets delta row as the stream's price message, which the tables apply. */
export function asMarketPrice(row: DeltaRow): MarketPrice {
  return {
    id: row.id,
    event_id: row.event_id,
    affiliate_id: row.affiliate_id,
    market_id: row.market_id,
    market_participant_id: row.participant_id,
    normalized_market_participant_id: row.participant_id,
    normalized_market_participant_type: PARTICIPANT_TYPE[row.participant_type] ?? 3,
    line: row.line,
    price: row.price,
    previous_price: row.previous_price,
    price_delta: 0,
    is_main_line: row.is_main_line,
    sport_id: row.sport_id,
    updated_at: row.updated_at,
    snapshot: false,
    closed_at: row.closed_at,
  };
}

/**
 * For plans without streams (below Ultra): the day's prices follow through the markets delta,
 * polled from the snapshot's `meta.delta_last_id` (the plan's own, delayed head: its delta is
 * delayed alike). Rows of events not on the screen (other days') are ignored by the tables. A
 * refused cursor or the periodic refresh reads the snapshot again, which hands the poller its
 * new head.
 */
export class RestPoller {
  private cursor: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastRefresh = Date.now();
  private stopped = false;

  constructor(
    private readonly client: OddsbaseClient,
    private readonly sportId: number,
    private readonly empty: () => boolean,
    private readonly apply: (row: MarketPrice) => void,
    private readonly reload: () => Promise<void>,
  ) {}

  /** The head of the snapshot just shown; polling starts (or goes on) from it. */
  from(head: string): void {
    this.cursor = head;
    this.lastRefresh = Date.now();
    if (!this.timer && !this.stopped) this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), POLL_MS);
  }

  private async tick(): Promise<void> {
    try {
      if (Date.now() - this.lastRefresh > (this.empty() ? EMPTY_REFRESH_MS : REFRESH_MS)) return await this.reload();
      for (;;) {
        const { data } = await this.client.marketsDelta({
          last_id: this.cursor!,
          sport_id: this.sportId,
          market_ids: withInPlayVariants([1, 2, 3]),
        });
        if (this.stopped) return;
        for (const row of data.deltas) this.apply(asMarketPrice(row));
        this.cursor = data.meta.delta_last_id;
        if (!data.meta.has_more) return;
      }
    } catch (err) {
      if (err instanceof CursorRejectedError) await this.reload();
      // Other failures (network, 5xx after the client's retries): the next tick tries again.
    } finally {
      if (!this.stopped) this.schedule();
    }
  }
}
