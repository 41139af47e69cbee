import type { AffiliateProfile } from '../../catalog/affiliates.ts';
import { AFFILIATES } from '../../catalog/affiliates.ts';
import type { Discipline } from '../../catalog/sports.ts';
import { applyMargin, OFF_BOARD, probToAmerican, roundAmerican } from '../../domain/odds.ts';
import { PARTICIPANT_TYPES, type ParticipantType } from '../../domain/types.ts';
import { SmallMap } from '../../board/small-map.ts';
import type { Update } from '../../ledger/updates.ts';
import type { FeedStateReader, PriceKey } from '../../board/feed-state.ts';
import type { Outlook, SportParams } from './model.ts';
import { balancedLine } from './model.ts';
import type { Offer, OfferGroup } from './offers.ts';
import { hashNormal, hashUnit } from './rng.ts';

/**
 * The books: which events and markets each one prices, its opinion (fair probability plus a
 * persistent bias plus noise), its margin and rounding, its main lines, and the cache of what was
 * last sent for every price so that only changes reach the ledger.
 */

export interface ParticipantRef {
  id: number;
  type: ParticipantType;
  name: string;
}

export const DRAW: ParticipantRef = { id: 2, type: 'TYPE_RESULT', name: 'Draw' };
export const OVER: ParticipantRef = { id: 0, type: 'TYPE_RESULT', name: 'Over' };
export const UNDER: ParticipantRef = { id: 1, type: 'TYPE_RESULT', name: 'Under' };

export interface Book {
  profile: AffiliateProfile;
  /** Persistent lean towards home (sides) and towards the over (totals), in probability points. */
  sideBias: number;
  totalBias: number;
  /** The current part of the opinion that changes now and then. */
  sideNoise: number;
  totalNoise: number;
  groups: ReadonlySet<OfferGroup>;
  props: boolean;
  /** Prices the event while it is more than two days away. */
  far: boolean;
  live: boolean;
  /** Alternate spread and total lines on each side of the main line (prematch, full game). */
  alternates: number;
  /** Current main line per `${marketId}:${periodId}`: home spread or total. */
  mains: Map<string, number>;
  /** When each main line last moved (ms), to keep live lines from moving on every score. */
  movedAt: Map<string, number>;
  /** Off-board episodes: market id -> time (ms) the book prices it again. */
  offUntil: Map<number, number>;
}

const US_DISCIPLINES: ReadonlySet<Discipline> = new Set(['football', 'basketball', 'baseball', 'hockey', 'mma']);
const POLITICS_BOOKS: ReadonlySet<number> = new Set([3, 4, 11, 25, 26]);

/** Share of events a book prices. */
function coverageShare(profile: AffiliateProfile, discipline: Discipline): number {
  if (discipline === 'politics') return POLITICS_BOOKS.has(profile.affiliate_id) ? 0.85 : 0;
  if (profile.affiliate_id === 25) return US_DISCIPLINES.has(discipline) ? 0.7 : 0.25;
  if (profile.kind === 'prediction_market') return 0.75;
  if (profile.kind === 'exchange') return 0.5;
  const share = profile.status === 'healthy' ? 0.6 : 0.38;
  // Most of the many tennis matches are on outside courts, which fewer sportsbooks price.
  return discipline === 'tennis' ? share / 3 : share;
}

const MIN_BOOKS = 4;

/** The books that price an event (at least four), in affiliate id order. */
export function coveringBooks(seed: number, eventId: string, discipline: Discipline): AffiliateProfile[] {
  const scored = AFFILIATES.map((profile) => ({
    profile,
    roll: hashUnit(seed, 'covers', eventId, profile.affiliate_id),
    share: coverageShare(profile, discipline),
  }));
  const chosen = scored.filter((s) => s.roll < s.share);
  if (chosen.length < MIN_BOOKS) {
    const rest = scored
      .filter((s) => s.roll >= s.share && s.share > 0)
      .sort((a, b) => a.roll / a.share - b.roll / b.share);
    chosen.push(...rest.slice(0, MIN_BOOKS - chosen.length));
  }
  return chosen.map((s) => s.profile).sort((a, b) => a.affiliate_id - b.affiliate_id);
}

/** Each covering book with its opinion and the parts of the event it prices. */
export function eventBooks(seed: number, eventId: string, discipline: Discipline): Book[] {
  const profiles = coveringBooks(seed, eventId, discipline);
  let propBooks = 0;
  const books = profiles.map((profile) => {
    const id = profile.affiliate_id;
    const roll = (what: string) => hashUnit(seed, what, eventId, id);
    const marketMaker = profile.kind !== 'sportsbook';
    const groups = new Set<OfferGroup>(['core']);
    if (roll('3way') < 0.75 && id !== 16) groups.add('three_way');
    if (!marketMaker && roll('half') < 0.6) groups.add('half');
    if (!marketMaker && roll('set') < 0.65) groups.add('set');
    const props = profile.props && propBooks < 3 && roll('props') < 0.55;
    if (props) propBooks++;
    return {
      profile,
      sideBias: hashNormal(seed, 'side', eventId, id) * profile.noise,
      totalBias: hashNormal(seed, 'total', eventId, id) * profile.noise,
      sideNoise: 0,
      totalNoise: 0,
      groups,
      props,
      far: roll('far') < 0.4,
      live: marketMaker || roll('live') < 0.65,
      alternates: profile.alternates >= 0.9 ? 2 : profile.alternates >= 0.5 ? 1 : 0,
      mains: new Map<string, number>(),
      movedAt: new Map<string, number>(),
      // Empty but for an off-board episode now and then, on every book of every event.
      offUntil: new SmallMap<number, number>(),
    };
  });
  // Far-future events still need a few books.
  for (const book of books) {
    if (books.filter((b) => b.far).length >= 2) break;
    book.far = true;
  }
  return books;
}

/** Moves a probability by `shift` points at even money, less towards the extremes. */
export function tilt(p: number, shift: number): number {
  return Math.min(0.995, Math.max(0.005, p + shift * 4 * p * (1 - p)));
}

/** One price as the book quotes it: cents on contract markets, rounded American odds at sportsbooks. */
export function quotePrice(profile: AffiliateProfile, implied: number): number {
  if (profile.kind === 'prediction_market' || profile.affiliate_id === 25) {
    return probToAmerican(Math.min(0.99, Math.max(0.01, Math.round(implied * 100) / 100)));
  }
  // Books do not quote beyond about -5000; a near-certain outcome sits there.
  const american = probToAmerican(Math.min(0.98, implied));
  if (profile.kind === 'exchange') return american;
  const magnitude = Math.abs(american);
  return roundAmerican(american, magnitude >= 1000 ? 50 : magnitude >= 300 ? 10 : 5);
}

/** A spread or total as a line value string: "3.5", "-3.5", "220", "0". */
export function formatLine(value: number): string {
  const v = Math.round(value * 2) / 2;
  return v === 0 ? '0' : String(v);
}

export interface DesiredLine {
  line: string;
  price: number;
  main: boolean;
  liquidity?: number;
  source?: string;
}

interface Entry {
  price: number;
  main: boolean;
  closed: boolean;
  liquidity?: number;
  source?: string;
}

interface Group {
  marketId: number;
  periodId: number;
  participant: ParticipantRef;
  affiliateId: number;
  lines: Map<string, Entry>;
}

const fits = (n: number, bits: number) => Number.isInteger(n) && n >= 0 && n < 2 ** bits;

/**
 * A group's key: one number (50 bits) while its parts fit, as they do for every price the simulator
 * makes, else a string. The strings were five-part concatenations, each a tree of string pieces:
 * 5.7 MB of a full board's 20 MB of price groups (a heap snapshot of the soak, docs/benchmarks.md).
 */
export function groupKey(
  marketId: number,
  periodId: number,
  participant: ParticipantRef,
  affiliateId: number,
): number | string {
  const type = PARTICIPANT_TYPES.indexOf(participant.type);
  if (fits(participant.id, 23) && fits(marketId, 12) && fits(periodId, 6) && fits(affiliateId, 7)) {
    return (((participant.id * 4 + type) * 4096 + marketId) * 64 + periodId) * 128 + affiliateId;
  }
  return `${marketId}|${periodId}|${participant.type}|${participant.id}|${affiliateId}`;
}

/**
 * What was last sent for each price of one event. It sends only changes, mirrors the ledger's
 * main-line rule (one main line per book and participant), closes lines a book stops offering, and
 * after a restart reads what it does not know from the committed state.
 */
export class PriceBook {
  private readonly groups = new Map<number | string, Group>();

  constructor(
    private readonly eventId: string,
    private readonly state: FeedStateReader,
    private readonly emit: (u: Update) => void,
  ) {}

  private group(marketId: number, periodId: number, participant: ParticipantRef, affiliateId: number): Group {
    const key = groupKey(marketId, periodId, participant, affiliateId);
    let g = this.groups.get(key);
    if (!g) {
      // A main line and a few alternates: 26,000 groups on a full board, too many for Map tables.
      g = { marketId, periodId, participant, affiliateId, lines: new SmallMap() };
      this.groups.set(key, g);
    }
    return g;
  }

  private key(g: Group, line: string): PriceKey {
    return {
      event_id: this.eventId,
      market_id: g.marketId,
      period_id: g.periodId,
      participant_id: g.participant.id,
      line,
      affiliate_id: g.affiliateId,
    };
  }

  private send(g: Group, line: string, price: number, extra: Partial<DesiredLine> & { closed?: boolean }): void {
    this.emit({
      kind: 'price',
      event_id: this.eventId,
      market_id: g.marketId,
      period_id: g.periodId,
      participant_id: g.participant.id,
      participant_type: g.participant.type,
      participant_name: g.participant.name,
      line,
      affiliate_id: g.affiliateId,
      price,
      ...(extra.main !== undefined ? { is_main_line: extra.main } : {}),
      ...(extra.closed ? { closed: true } : {}),
      ...(extra.liquidity !== undefined ? { liquidity_usd: extra.liquidity } : {}),
      ...(extra.source !== undefined ? { source_id: extra.source } : {}),
    });
  }

  /**
   * Closes a price that is open, repeating its liquidity and id so that the closed row still carries
   * them. Closed entries stay in the cache (an event's cache goes when the event ends).
   */
  private closeEntry(g: Group, line: string, e: Entry): void {
    if (e.closed) return;
    this.send(g, line, e.price, { closed: true, liquidity: e.liquidity, source: e.source });
    e.closed = true;
  }

  /** Makes the book's offer for one participant exactly `desired`: sends changes, closes the rest. */
  sync(
    marketId: number,
    periodId: number,
    participant: ParticipantRef,
    affiliateId: number,
    desired: readonly DesiredLine[],
  ): void {
    const g = this.group(marketId, periodId, participant, affiliateId);
    for (const d of desired) {
      let e = g.lines.get(d.line);
      if (!e) {
        const snap = this.state.price(this.key(g, d.line));
        if (snap) e = { price: snap.price, main: snap.is_main_line, closed: snap.closed };
      }
      if (
        e &&
        !e.closed &&
        e.price === d.price &&
        e.main === d.main &&
        e.liquidity === d.liquidity &&
        e.source === d.source
      ) {
        g.lines.set(d.line, e);
        continue;
      }
      this.send(g, d.line, d.price, d);
      // The ledger takes the flag off the previous main line itself.
      if (d.main) for (const other of g.lines.values()) other.main = false;
      g.lines.set(d.line, {
        price: d.price,
        main: d.main,
        closed: false,
        liquidity: d.liquidity,
        source: d.source,
      });
    }
    if (g.lines.size === desired.length) return;
    const keep = new Set(desired.map((d) => d.line));
    for (const [line, e] of g.lines) if (!keep.has(line)) this.closeEntry(g, line, e);
  }

  /** Closes every open price of the markets (and books) that match. */
  close(match: (marketId: number, affiliateId: number) => boolean): void {
    for (const g of this.groups.values()) {
      if (match(g.marketId, g.affiliateId)) for (const [line, e] of g.lines) this.closeEntry(g, line, e);
    }
  }

  /**
   * After a restart: takes the committed open prices among `candidates` into the cache, so that
   * they are updated or closed like any other. Returns the line committed as main, if any.
   */
  adopt(
    marketId: number,
    periodId: number,
    participant: ParticipantRef,
    affiliateId: number,
    candidates: readonly string[],
  ): string | undefined {
    const g = this.group(marketId, periodId, participant, affiliateId);
    // One read of the group's committed lines: a lookup per candidate line (player props have about
    // 80 per player, book and market) made each event's first step after a restart a stall of up to 165 ms.
    const committed = this.state.linePrices({
      event_id: this.eventId,
      market_id: marketId,
      period_id: periodId,
      participant_id: participant.id,
      affiliate_id: affiliateId,
    });
    if (committed.size === 0) return undefined;
    let main: string | undefined;
    for (const line of candidates) {
      const snap = g.lines.has(line) ? undefined : committed.get(line);
      if (!snap || snap.closed) continue;
      g.lines.set(line, { price: snap.price, main: snap.is_main_line, closed: false });
      if (snap.is_main_line) main = line;
    }
    return main;
  }
}

/** Per-outcome extras a book attaches to a price (liquidity, its own id). */
export type Extras = (
  book: Book,
  offer: Offer,
  participant: ParticipantRef,
  line: string,
  implied: number,
) => { liquidity?: number; source?: string };

export interface QuoteInput {
  book: Book;
  offer: Offer;
  outlook: Outlook;
  params: SportParams;
  away: ParticipantRef;
  home: ParticipantRef;
  prices: PriceBook;
  live: boolean;
  /** Prematch: the book re-centres its main lines even when they lean only a little. */
  rebalance?: boolean;
  nowMs: number;
  /** Least time between two moves of a live main line, in ms. */
  liveLineGapMs: number;
  extras: Extras;
}

const LIVE_MARGIN = 1.25;

/** Prices one market of one book from the outlook of its segment. */
export function quoteOffer(q: QuoteInput): void {
  const { book, offer, outlook, live } = q;
  const off = (book.offUntil.get(offer.marketId) ?? 0) > q.nowMs;
  const scale = (live ? LIVE_MARGIN : 1) * (offer.group === 'core' ? 1 : 1.2);
  const send = (participant: ParticipantRef, rows: { line: string; implied: number; main: boolean }[]) => {
    q.prices.sync(
      offer.marketId,
      offer.periodId,
      participant,
      book.profile.affiliate_id,
      rows.map((r) => {
        const { liquidity, source } = q.extras(book, offer, participant, r.line, r.implied);
        // Off the board there is no book depth to show; the book's own id stays.
        if (off) return { line: r.line, price: OFF_BOARD, main: r.main, source };
        return { line: r.line, price: quotePrice(book.profile, r.implied), main: r.main, liquidity, source };
      }),
    );
  };
  const side = book.sideBias + book.sideNoise;
  if (offer.kind === 'ml') {
    const home = tilt(outlook.win(), side);
    const [ia, ih] = applyMargin([1 - home, home], book.profile.margin * scale);
    send(q.away, [{ line: '', implied: ia, main: true }]);
    send(q.home, [{ line: '', implied: ih, main: true }]);
    return;
  }
  if (offer.kind === 'ml3') {
    const [a, d, h] = outlook.threeWay();
    const home = tilt(h, side);
    const away = tilt(a, -side);
    const sum = home + away + d;
    const implied = applyMargin([away / sum, d / sum, home / sum], book.profile.margin * scale * 1.3);
    send(q.away, [{ line: '', implied: implied[0], main: true }]);
    send(DRAW, [{ line: '', implied: implied[1], main: true }]);
    send(q.home, [{ line: '', implied: implied[2], main: true }]);
    return;
  }
  const spread = offer.kind === 'spread';
  const shift = spread ? side : book.totalBias + book.totalNoise;
  const prob = (line: number) => tilt(spread ? outlook.cover(line) : outlook.over(line), shift);
  const main = mainLine(q, prob, spread);
  const alternates = !live && offer.group === 'core' ? book.alternates : 0;
  const step = spread && q.params.fixedSpread ? 1 : q.params.lineStep;
  const first: { line: string; implied: number; main: boolean }[] = [];
  const second: typeof first = [];
  for (let k = -alternates; k <= alternates; k++) {
    const line = main + k * step;
    if (!spread && line <= 0) continue;
    const p = prob(line);
    const [i1, i2] = applyMargin([p, 1 - p], book.profile.margin * scale * (k === 0 ? 1 : 1.15));
    if (spread) {
      first.push({ line: formatLine(line), implied: i1, main: k === 0 });
      second.push({ line: formatLine(-line), implied: i2, main: k === 0 });
    } else {
      const value = formatLine(line);
      first.push({ line: value, implied: i1, main: k === 0 });
      second.push({ line: value, implied: i2, main: k === 0 });
    }
  }
  if (spread) {
    send(q.home, first);
    send(q.away, second);
  } else {
    send(OVER, first);
    send(UNDER, second);
  }
}

/**
 * The book's main line: kept while its price stays near even money, else moved to the balanced
 * line. Run-line and puck-line sports keep +/-1.5 on the favourite.
 */
function mainLine(q: QuoteInput, prob: (line: number) => number, spread: boolean): number {
  const { book, offer, outlook, params, live } = q;
  const key = `${offer.marketId}:${offer.periodId}`;
  const current = book.mains.get(key);
  let next: number;
  if (spread && params.fixedSpread) {
    const fixed = params.fixedSpread;
    const favouriteHome =
      current === undefined ? outlook.win() >= 0.5 : current < 0 ? outlook.win() > 0.44 : outlook.win() > 0.56;
    next = favouriteHome ? -fixed : fixed;
  } else {
    if (current !== undefined) {
      const gap = Math.abs(prob(current) - 0.5);
      const settled = live && q.nowMs - (book.movedAt.get(key) ?? 0) < q.liveLineGapMs && gap < 0.3;
      if (gap <= (live ? 0.1 : q.rebalance ? 0.02 : 0.07) || settled) return current;
    }
    next = balancedLine(prob, spread ? -outlook.margin : outlook.total, params.lineStep);
  }
  if (next !== current) {
    book.mains.set(key, next);
    book.movedAt.set(key, q.nowMs);
  }
  return next;
}
