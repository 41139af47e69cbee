import type { EventState } from '../board/event-state.ts';
import { type EventFilter, everyBookKey, filterKey } from '../projection/event-view.ts';
import { BOOK_CUT_BYTES, type BookCut, bookCut, cutBooks } from '../projection/book-cut.ts';
import { BudgetMap, type ByteBudget, MARK_BYTES } from '../projection/byte-budget.ts';
import type { CallerRule } from './caller-rules.ts';
import { etagOf, keepBody, keptExtraBytes } from './encoding.ts';
import type { LaneAnswer } from './fast-lane.ts';
import { type EventJson, eventJson } from '../projection/event-json.ts';
import { eventPoints } from '../projection/event-view.ts';
import { ownBytes, VIEW_BYTES } from '../projection/json-bytes.ts';

interface CachedView extends SerializedEvent {
  version: number;
}

/**
 * A kept answer with its gzip bytes and ETag (src/http/encoding.ts), its data points, and the rules
 * per caller it was given under (src/http/caller-rules.ts).
 */
export type KeptAnswer = LaneAnswer;

interface CachedResponse extends KeptAnswer {
  head: number;
}

/** Heap bytes of a CachedResponse and its Buffer object besides the body's bytes (measured: 224). */
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
 * Serialised bytes of event views, kept per event and filter and replaced when the event's version
 * (the id of the last change row that touched it) moves. Whole responses are kept too, keyed by
 * the request and the ledger head, so repeated polls between two commits cost one buffer copy.
 * Both draw from the shared byte budget: least recently used out first, whatever the filters.
 *
 * A view or response is kept from the second time its key is asked; the first time leaves a mark
 * of a few bytes. Requests that are never asked again (distinct filters, which a client can send as
 * fast as its rate limit allows) otherwise filled the budget with answers no one reads again, about
 * 15 MB a second at 200 such requests, and pushed out the entries polls reuse (their views, and the
 * every-book views cuts are made from). A poll pays for it once: its second request builds again.
 */
export class SnapshotCache {
  private readonly views = new WeakMap<EventState, BudgetMap<string, CachedView | null>>();
  /** Per event, by every-book filter key: the every-book view at a version, once a second book list asked. */
  private readonly cuts = new WeakMap<EventState, BudgetMap<string, { version: number; cut: BookCut | undefined }>>();
  private readonly responses: BudgetMap<string, CachedResponse | null>;

  constructor(private readonly budget: ByteBudget) {
    this.responses = new BudgetMap(budget);
  }

  event(state: EventState, filter: EventFilter, key = filterKey(filter)): SerializedEvent {
    let perEvent = this.views.get(state);
    if (!perEvent) {
      perEvent = new BudgetMap(this.budget);
      this.views.set(state, perEvent);
    }
    const hit = perEvent.get(key);
    if (hit && hit.version === state.version) {
      return hit;
    }
    const cut = filter.affiliateIds && this.cutFor(state, filter, key);
    let body: Buffer;
    let view: Omit<EventJson, 'json'>;
    if (cut) {
      const made = cutBooks(cut, filter.affiliateIds!);
      body = made.bytes;
      view = made.json;
    } else {
      const json = eventJson(state, filter);
      body = ownBytes(json.json);
      view = json;
    }
    const entry: CachedView = {
      version: state.version,
      body,
      priceCount: view.priceCount,
      marketCount: view.marketCount,
      points: eventPoints(view.priceCount, view.liveState),
    };
    if (hit === undefined) perEvent.set(key, null, MARK_BYTES);
    else perEvent.set(key, entry, VIEW_BYTES + body.length);
    return entry;
  }

  /**
   * The every-book view to cut a book list's view from (src/projection/book-cut.ts), made when a second
   * book list asks for the same event, filter and version: one list alone (a poller's own) is
   * written directly as before, since making the every-book view costs more than one view.
   */
  private cutFor(state: EventState, filter: EventFilter, key: string): BookCut | undefined {
    let perEvent = this.cuts.get(state);
    if (!perEvent) {
      perEvent = new BudgetMap(this.budget);
      this.cuts.set(state, perEvent);
    }
    const shape = everyBookKey(key);
    const kept = perEvent.get(shape);
    if (kept?.version !== state.version) {
      perEvent.set(shape, { version: state.version, cut: undefined }, MARK_BYTES);
      return undefined;
    }
    if (!kept.cut) {
      const cut = bookCut(state, filter);
      perEvent.set(shape, { version: state.version, cut }, BOOK_CUT_BYTES + cut.bytes.length + cut.walk.byteLength);
      return cut;
    }
    return kept.cut;
  }

  response(key: string, head: number): KeptAnswer | undefined {
    const hit = this.responses.get(key);
    return hit && hit.head === head ? hit : undefined;
  }

  /** Whether `key` was asked before (its answer kept at any head, or a mark): a build for it serves a repeated poll. */
  askedBefore(key: string): boolean {
    return this.responses.peek(key) !== undefined;
  }

  /**
   * Keeps a built answer (from its key's second build: the first leaves a mark) and returns it as it
   * is sent: compressed and tagged when kept; tagged only when not, as an answer of the first build
   * is compressed per request if at all.
   */
  storeResponse(key: string, head: number, body: Buffer, points: number, rules: readonly CallerRule[]): KeptAnswer {
    const previous = this.responses.peek(key);
    if (previous === undefined) {
      this.responses.set(key, null, MARK_BYTES);
      return { body, gzip: undefined, etag: etagOf(body), points, rules };
    }
    const kept: CachedResponse = { head, points, rules, ...keepBody(body, previous ?? undefined) };
    this.responses.set(key, kept, RESPONSE_BYTES + body.length + keptExtraBytes(kept));
    return kept;
  }
}
