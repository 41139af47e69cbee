import type { EventState } from '../board/event-state.ts';
import { type EventFilter, everyBookKey, filterKey } from '../projection/event-view.ts';
import { BOOK_CUT_BYTES, type BookCut, bookCut, cutBooks } from '../projection/book-cut.ts';
import { type ByteBudget, MARK_BYTES } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import type { CallerRule } from './caller-rules.ts';
import { etagOf, keepBody, keptExtraBytes } from './encoding.ts';
import type { LaneAnswer } from './fast-lane.ts';
import { type EventJson, eventJson } from '../projection/event-json.ts';
import { eventPoints } from '../projection/event-view.ts';
import { ownBytes, VIEW_BYTES } from '../projection/json-bytes.ts';
import type { MarketNames } from '../perf/event-text.ts';

/**
 * The names views show, from the current catalog, and its version, raised by every change of it:
 * a kept view or answer made at another version is not current (the names in it may have changed).
 */
export interface ViewNames extends MarketNames {
  readonly version: number;
}

/** A kept answer with the catalog version its build began at. */
interface KeptSnapshot extends KeptAnswer {
  readonly catalog: number;
}

/** Per event: its kept views or cuts, made at one catalog version. */
interface PerEvent<V> {
  catalog: number;
  kept: FreshCache<string, number, V>;
}

/**
 * A kept answer with its gzip bytes and ETag (src/http/encoding.ts), its data points, and the rules
 * per caller it was given under (src/http/caller-rules.ts).
 */
export type KeptAnswer = LaneAnswer;

/** Heap bytes of a kept answer and its Buffer object besides the body's bytes (measured: 224). */
const RESPONSE_BYTES = 224;

export interface SerializedEvent {
  /**
   * The view's JSON in UTF-8, outside the JavaScript heap: a kept view that survives two young
   * collections is not copied by either, and an envelope copies its bytes instead of encoding text.
   */
  body: Buffer;
  priceCount: number;
  marketCount: number;
  /** Data points of this event in a response (spec metering: events, scores, odds, live state). */
  points: number;
}

/**
 * Serialised bytes of event views, kept per event and filter for the event's version (the id of the
 * last change row that touched it). Whole responses are kept too, per request key for the view's
 * head, so repeated polls between two commits cost one buffer copy. All are uses of the one fresh
 * cache (src/perf/fresh-cache.ts), in the shared byte budget: least recently used out first,
 * whatever the filters; under ODDSBASE_PLAIN=1 nothing is kept and every answer is built.
 *
 * A view or response is kept from the second time its key is asked; the first time leaves a mark
 * of a few bytes. Requests that are never asked again (distinct filters, which a client can send as
 * fast as its rate limit allows) otherwise filled the budget with answers no one reads again, about
 * 15 MB a second at 200 such requests, and pushed out the entries polls reuse (their views, and the
 * every-book views cuts are made from). A poll pays for it once: its second request builds again.
 */
export class SnapshotCache {
  private readonly views = new WeakMap<EventState, PerEvent<SerializedEvent>>();
  /**
   * Per event, by every-book filter key, for a version: null once a book list asked (a mark), the
   * every-book view once a second one asked.
   */
  private readonly cuts = new WeakMap<EventState, PerEvent<BookCut | null>>();
  private readonly responses: FreshCache<string, number, KeptSnapshot>;

  /** `names`: the current catalog; a change of it makes every kept view and answer stale. */
  constructor(
    private readonly budget: ByteBudget,
    private readonly names: ViewNames,
    private readonly keeping: Keeping = KEEPING,
  ) {
    this.responses = freshCache(
      budget,
      { fromSecond: true, current: (kept, now, answer) => kept === now && answer.catalog === names.version },
      keeping,
    );
  }

  /** The catalog version a build begins at: what `storeResponse` is told, so a change during the build is seen. */
  get catalogVersion(): number {
    return this.names.version;
  }

  /**
   * An event's kept entries in `of`, made again when the catalog changed since they were kept (the
   * old ones go as the budget's least recently used).
   */
  private perEvent<V>(
    of: WeakMap<EventState, PerEvent<V>>,
    state: EventState,
    fromSecond: boolean,
  ): FreshCache<string, number, V> {
    const version = this.names.version;
    let perEvent = of.get(state);
    if (!perEvent || perEvent.catalog !== version) {
      perEvent = { catalog: version, kept: freshCache(this.budget, { fromSecond }, this.keeping) };
      of.set(state, perEvent);
    }
    return perEvent.kept;
  }

  event(state: EventState, filter: EventFilter, key = filterKey(filter)): SerializedEvent {
    const perEvent = this.perEvent(this.views, state, true);
    const hit = perEvent.get(key, state.version);
    if (hit) return hit;
    const cut = filter.affiliateIds && this.cutFor(state, filter, key);
    let body: Buffer;
    let view: Omit<EventJson, 'json'>;
    if (cut) {
      const made = cutBooks(cut, filter.affiliateIds!);
      body = made.bytes;
      view = made.json;
    } else {
      const json = eventJson(state, filter, this.names);
      body = ownBytes(json.json);
      view = json;
    }
    const entry: SerializedEvent = {
      body,
      priceCount: view.priceCount,
      marketCount: view.marketCount,
      points: eventPoints(view.priceCount, view.liveState),
    };
    perEvent.set(key, state.version, entry, VIEW_BYTES + body.length);
    return entry;
  }

  /**
   * The every-book view to cut a book list's view from (src/projection/book-cut.ts), made when a second
   * book list asks for the same event, filter and version: one list alone (a poller's own) is
   * written directly as before, since making the every-book view costs more than one view.
   */
  private cutFor(state: EventState, filter: EventFilter, key: string): BookCut | undefined {
    const perEvent = this.perEvent(this.cuts, state, false);
    const shape = everyBookKey(key);
    const kept = perEvent.get(shape, state.version);
    if (kept === undefined) {
      perEvent.set(shape, state.version, null, MARK_BYTES);
      return undefined;
    }
    if (kept === null) {
      const cut = bookCut(state, filter, this.names);
      perEvent.set(shape, state.version, cut, BOOK_CUT_BYTES + cut.bytes.length + cut.walk.byteLength);
      return cut;
    }
    return kept;
  }

  response(key: string, head: number): KeptAnswer | undefined {
    return this.responses.get(key, head);
  }

  /** Whether `key` was asked before (its answer kept at any head, or a mark): a build for it serves a repeated poll. */
  askedBefore(key: string): boolean {
    return this.responses.asked(key);
  }

  /**
   * Keeps a built answer (from its key's second build: the first leaves a mark) and returns it as it
   * is sent: compressed and tagged when kept; tagged only when not, as an answer of the first build
   * is compressed per request if at all.
   */
  storeResponse(
    key: string,
    head: number,
    catalog: number,
    body: Buffer,
    points: number,
    rules: readonly CallerRule[],
  ): KeptAnswer {
    if (!this.responses.asked(key)) {
      const first: KeptSnapshot = { body, gzip: undefined, etag: etagOf(body), points, rules, catalog };
      // Leaves the key's mark: the answer itself is kept from the next build.
      this.responses.set(key, head, first, 0);
      return first;
    }
    const kept: KeptSnapshot = { points, rules, catalog, ...keepBody(body, this.responses.last(key)) };
    this.responses.set(key, head, kept, RESPONSE_BYTES + body.length + keptExtraBytes(kept));
    return kept;
  }
}
