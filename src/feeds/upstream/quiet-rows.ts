import type { DeltaRow, MarketsDeltaPage, OddsbaseClient } from '../../../packages/client/src/index.ts';

/** A market of an event where a price may have moved its liquidity or source id only. */
export interface QuietMove {
  eventId: string;
  marketId: number;
}

/** Books whose prices the mirror has been given extras for: those read beside the stream. */
export interface ExtrasBooks {
  /** With liquidity or a source id. */
  any: ReadonlySet<number>;
  /** With a source id, which a stream frame does not carry (it carries the liquidity). */
  sourceIds: ReadonlySet<number>;
}

/** Books a markets-delta request may name (docs/spec-gaps.md, Delta feeds). */
const BOOKS_PER_REQUEST = 100;

/**
 * Whether a markets-delta row may be one that moved only a price's liquidity or source id: the
 * row carries neither, and its quote (price, flag, closure) is the one before it. A reopening at
 * the same price looks the same; reading its market again costs a read and writes nothing.
 */
export function isQuiet(row: Pick<DeltaRow, 'change_type' | 'price' | 'previous_price' | 'closed_at'>): boolean {
  return row.change_type === 'price_change' && row.price === row.previous_price && row.closed_at === '';
}

/**
 * The markets-delta rows the upstream's stream does not send (spec: no message for a
 * liquidity-only change), read beside it from their own cursor: it starts where the stream
 * resumes and reads the rows of the books that carry liquidity or source ids, whenever the
 * mirror asks (the event delta's cadence). The stream's own rows come along and are left out by
 * `isQuiet` or, when they pass it, by the read of their market, which writes nothing the mirror
 * holds already: so nothing is applied twice. Moved rows of books with source ids are kept too:
 * their frames brought the price and its liquidity, not the source id. A read moves the cursor only once the mirror has
 * applied what it found (`settle`): a turn that fails reads the same rows again at the next.
 */
export class QuietRows {
  private cursor: string | undefined;
  /** Where the last read ended, until settled; `null`: the last read was the final one. */
  private readTo: string | null | undefined;

  constructor(private readonly client: OddsbaseClient) {}

  /** Whether rows are followed (a stream is open from the cursor). */
  get following(): boolean {
    return this.cursor !== undefined;
  }

  /** The position rows are read after (where the last settled read ended). */
  get position(): string | undefined {
    return this.cursor;
  }

  /** Follows from `cursor`: the position a stream resumes from. */
  from(cursor: string): void {
    this.cursor = cursor;
  }

  /** Stops following (the markets delta is polled whole, or a fresh snapshot replaced the cursor). */
  stop(): void {
    this.cursor = undefined;
    this.readTo = undefined;
  }

  /** What the last read found is applied: the cursor moves on (or, after a final read, stops). */
  settle(): void {
    if (this.readTo === null) this.cursor = undefined;
    else if (this.readTo !== undefined) this.cursor = this.readTo;
    this.readTo = undefined;
  }

  /**
   * The quiet rows after the cursor up to the upstream's head, of `books` (none: nothing is
   * asked, and the cursor stays for when a book has extras), and every row of the books with
   * source ids, paged while `has_more`; `final`: the
   * stream stopped, so `settle` stops following. A refused cursor fails the turn: the mirror then
   * starts over from a fresh snapshot, which brings every price's liquidity.
   */
  async read(books: ExtrasBooks, signal: AbortSignal, final = false): Promise<QuietMove[]> {
    let cursor = this.cursor;
    if (cursor === undefined || books.any.size === 0) {
      this.readTo = final ? null : undefined;
      return [];
    }
    const ids = [...books.any].sort((a, b) => a - b);
    const out: QuietMove[] = [];
    for (;;) {
      const page: MarketsDeltaPage = (
        await this.client.marketsDelta(
          {
            last_id: cursor,
            ...(ids.length <= BOOKS_PER_REQUEST ? { affiliate_ids: ids } : {}),
            limit: 5000,
          },
          { signal },
        )
      ).data;
      for (const row of page.deltas) {
        const book = row.affiliate_id;
        if (books.any.has(book) && (isQuiet(row) || books.sourceIds.has(book)))
          out.push({ eventId: row.event_id, marketId: row.market_id });
      }
      cursor = page.meta.delta_last_id;
      if (!page.meta.has_more) {
        this.readTo = final ? null : cursor;
        return out;
      }
    }
  }
}
