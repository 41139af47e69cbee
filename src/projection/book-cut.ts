import type { EventState } from '../board/event-state.ts';
import { type EventFilter, marketShown, participantShown } from './event-view.ts';
import { type EventJson, eventText } from './event-json.ts';
import { lineOpen, type MarketNames, marketOpen, participantOpen, priceEntry } from '../perf/event-text.ts';

const { infoParts, shownPrices } = eventText;

/**
 * An event's view of every book, as bytes, with where each market, participant, line and price
 * begins and ends: the view of any set of books is cut from it by copying the runs that set keeps.
 * Odds screens ask the same markets with the books each user follows, and one view per book set,
 * written from the board each time, was most of the CPU a burst of such requests took.
 */
export interface BookCut {
  /**
   * The pieces of the view with every book the rest of the filter shows, back to back: head, each
   * market's, participant's and line's opening, each price entry, tail; a line's price entries with
   * the commas between them (a cut copies neighbouring prices it keeps, and the line's opening
   * before them, in one run), the other separators and the closing brackets left to a cut to write.
   */
  bytes: Buffer;
  /**
   * The walk of the view: [headEnd, tailStart, markets], then per market [openStart, openEnd,
   * participants], per participant [openStart, openEnd, lines], per line [openStart, openEnd,
   * prices], per price [affiliate_id, start, end]; each container's members follow it.
   */
  walk: Float64Array;
  liveState: boolean;
}

/** Bytes of a BookCut besides its JSON and walk (objects, and the native records of both). */
export const BOOK_CUT_BYTES = 400;

/** Where cuts and every-book views are written before they are copied out at their size. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/** Grows the scratch buffer to hold `bytes`, keeping what it holds. */
function room(bytes: number): void {
  if (scratch.length >= bytes) return;
  const bigger = Buffer.allocUnsafeSlow(Math.max(bytes, scratch.length * 2));
  scratch.copy(bigger);
  scratch = bigger;
}

/** The view of every book under `f` (its book list aside), with its walk; markets named by `names`. */
export function bookCut(state: EventState, f: EventFilter, names: MarketNames): BookCut {
  const all: EventFilter = { ...f, affiliateIds: null };
  const info = infoParts(state.info);
  const liveState = f.liveGameState && info.tailLive !== undefined;
  const walk: number[] = [0, 0, 0];
  let at = 0;
  /** Writes `text` into the scratch buffer at `at`; returns where it starts (`at` is where it ends). */
  const write = (text: string): number => {
    const from = at;
    room(at + text.length * 3);
    at += scratch.write(text, at, 'utf8');
    return from;
  };
  write(info.head);
  walk[0] = at;
  // Arguments are evaluated in order: each `at` after a `write` is where that piece ends.
  for (const m of state.markets.values()) {
    if (!marketShown(m, all)) continue;
    const market = walk.length;
    const marketAt = at;
    walk.push(write(marketOpen(m, names)), at, 0);
    for (const part of m.participants.values()) {
      if (!participantShown(part, all)) continue;
      const participant = walk.length;
      const participantAt = at;
      walk.push(write(participantOpen(part)), at, 0);
      for (const line of part.lines.values()) {
        const prices = shownPrices(line, all);
        if (prices.length === 0) continue;
        walk.push(write(lineOpen(line)), at, prices.length);
        for (let k = 0; k < prices.length; k++) {
          if (k > 0) write(',');
          const p = prices[k]!;
          walk.push(p.affiliate_id, write(priceEntry(p, f.includePriceDelta)), at);
        }
        // Each open pushed three entries at its index, so its count (index + 2) exists.
        walk[participant + 2]!++;
      }
      if (walk[participant + 2] === 0) {
        walk.length = participant;
        at = participantAt;
      } else walk[market + 2]!++;
    }
    if (walk[market + 2] === 0) {
      walk.length = market;
      at = marketAt;
    } else walk[2]!++;
  }
  walk[1] = write(liveState ? info.tailLive! : info.tail);
  const bytes = Buffer.allocUnsafeSlow(at);
  scratch.copy(bytes, 0, 0, at);
  return { bytes, walk: Float64Array.from(walk), liveState };
}

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Runs shorter than this are copied byte by byte: Buffer#copy of a part of a buffer allocates a view. */
const SHORT_RUN = 32;

function copy(from: Buffer, start: number, end: number, at: number): number {
  if (end - start < SHORT_RUN) {
    for (let i = start; i < end; i++) scratch[at++] = from[i]!;
    return at;
  }
  return at + from.copy(scratch, at, start, end);
}

/**
 * The view of the books in `books` cut from `cut`: the bytes, counts and flags `eventJson` gives
 * for the same filter with that book list. A line left without prices goes, and so does a
 * participant left without lines and a market left without participants.
 */
export function cutBooks(cut: BookCut, books: ReadonlySet<number>): { bytes: Buffer; json: Omit<EventJson, 'json'> } {
  const { bytes: src, walk } = cut;
  // The bytes hold no separators or closers: each node of the walk adds at most three.
  room(src.length + walk.length);
  let at = copy(src, 0, walk[0]!, 0);
  let priceCount = 0;
  let marketCount = 0;
  let i = 3;
  for (let m = walk[2]!; m > 0; m--) {
    const marketAt = at;
    if (marketCount > 0) scratch[at++] = COMMA;
    at = copy(src, walk[i]!, walk[i + 1]!, at);
    const participantsIn = walk[i + 2]!;
    i += 3;
    let participants = 0;
    for (let p = participantsIn; p > 0; p--) {
      const participantAt = at;
      if (participants > 0) scratch[at++] = COMMA;
      at = copy(src, walk[i]!, walk[i + 1]!, at);
      const linesIn = walk[i + 2]!;
      i += 3;
      let lines = 0;
      for (let l = linesIn; l > 0; l--) {
        const lineAt = at;
        if (lines > 0) scratch[at++] = COMMA;
        // The bytes still to copy: the line's opening, then each price kept right after the last
        // (the first entry follows the opening, a later one the comma after the one before).
        let runStart = walk[i]!;
        let runEnd = walk[i + 1]!;
        const pricesIn = walk[i + 2]!;
        i += 3;
        let prices = 0;
        for (let n = pricesIn; n > 0; n--, i += 3) {
          if (!books.has(walk[i]!)) continue;
          const start = walk[i + 1]!;
          if (start === runEnd || (prices > 0 && start === runEnd + 1)) {
            runEnd = walk[i + 2]!;
          } else {
            at = copy(src, runStart, runEnd, at);
            if (prices > 0) scratch[at++] = COMMA;
            runStart = start;
            runEnd = walk[i + 2]!;
          }
          prices++;
        }
        if (prices === 0) {
          at = lineAt;
          continue;
        }
        at = copy(src, runStart, runEnd, at);
        scratch[at++] = CLOSE_BRACE;
        scratch[at++] = CLOSE_BRACE;
        priceCount += prices;
        lines++;
      }
      if (lines === 0) {
        at = participantAt;
        continue;
      }
      scratch[at++] = CLOSE_BRACKET;
      scratch[at++] = CLOSE_BRACE;
      participants++;
    }
    if (participants === 0) {
      at = marketAt;
      continue;
    }
    scratch[at++] = CLOSE_BRACKET;
    scratch[at++] = CLOSE_BRACE;
    marketCount++;
  }
  at = copy(src, walk[1]!, src.length, at);
  const bytes = Buffer.allocUnsafeSlow(at);
  scratch.copy(bytes, 0, 0, at);
  return { bytes, json: { priceCount, marketCount, liveState: cut.liveState } };
}
