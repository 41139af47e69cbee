import {
  isInPlay,
  logicalMarketId,
  type Event,
  type MarketPrice,
  type Score,
} from '../../packages/client/src/index.ts';
import { payout } from './odds-format.ts';

/**
 * The screen's state of a day: per event, each book's main-line quote of the moneyline, spread and
 * total for every side. Prematch and in-play rows (1 and 41, 2 and 42, 3 and 43) are one logical
 * market (spec: Market IDs, rule 1): each keeps its own quote and the screen shows the in-play one
 * while it is open. No DOM here, so it is tested in Node.
 */

export type CoreKind = 'moneyline' | 'spread' | 'total';

export const CORE_MARKETS: readonly { id: number; kind: CoreKind; label: string }[] = [
  { id: 1, kind: 'moneyline', label: 'Moneyline' },
  { id: 2, kind: 'spread', label: 'Spread' },
  { id: 3, kind: 'total', label: 'Total' },
];

const CORE_IDS = new Set(CORE_MARKETS.map((m) => m.id));

export type SideRole = 'away' | 'draw' | 'home' | 'over' | 'under' | 'other';

export interface Side {
  participantId: number;
  name: string;
  role: SideRole;
}

export interface Quote {
  /** The price id (REST `Price.id`, the stream's `id`). */
  priceId: string;
  line: string;
  /** American odds; 0.0001 is off the board. */
  price: number;
  closed: boolean;
  updatedAt: string;
}

/** One book's quotes of one side: the prematch row and the in-play row, each as last seen. */
interface QuotePair {
  pre?: Quote;
  live?: Quote;
}

export interface BoardEvent {
  id: string;
  sportId: number;
  startsAt: string;
  teams: Event['teams'];
  rotationAway?: number;
  rotationHome?: number;
  score?: Score;
  liveGameState?: Record<string, unknown>;
  /** Sides per logical market, in display order. */
  sides: Map<number, Side[]>;
  quotes: Map<string, QuotePair>;
}

export const quoteKey = (logical: number, participantId: number, affiliateId: number): string =>
  `${logical}:${participantId}:${affiliateId}`;

const ROLE_ORDER: Record<SideRole, number> = { away: 0, over: 0, draw: 1, under: 1, home: 2, other: 3 };

function roleOf(teams: Event['teams'], logical: number, type: string, participantId: number): SideRole {
  if (type === 'TYPE_TEAM') {
    if (teams[0]?.team_id === participantId) return 'away';
    if (teams[1]?.team_id === participantId) return 'home';
    return 'other';
  }
  if (logical === 3) return participantId === 0 ? 'over' : participantId === 1 ? 'under' : 'other';
  return logical === 1 ? 'draw' : 'other';
}

function addSide(ev: BoardEvent, logical: number, side: Side): void {
  const list = ev.sides.get(logical) ?? [];
  if (list.some((s) => s.participantId === side.participantId)) return;
  list.push(side);
  list.sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
  ev.sides.set(logical, list);
}

function defaultName(ev: BoardEvent, role: SideRole, participantId: number): string {
  if (role === 'away') return ev.teams[0]?.name ?? 'Away';
  if (role === 'home') return ev.teams[1]?.name ?? 'Home';
  if (role === 'over') return 'Over';
  if (role === 'under') return 'Under';
  return role === 'draw' ? 'Draw' : `#${participantId}`;
}

function setQuote(ev: BoardEvent, marketId: number, participantId: number, affiliateId: number, q: Quote): void {
  const key = quoteKey(logicalMarketId(marketId), participantId, affiliateId);
  const pair = ev.quotes.get(key) ?? {};
  if (isInPlay(marketId)) pair.live = q;
  else pair.pre = q;
  ev.quotes.set(key, pair);
}

/**
 * An event of a main-line snapshot. Snapshot prices carry no `closed_at` (spec: delta and history
 * only), so `openPriceIds`, the price ids of the same snapshot read with `hide_closed=true`, tells
 * which are closed; without it every price counts as open.
 */
export function boardEvent(e: Event, openPriceIds?: ReadonlySet<string>): BoardEvent {
  const ev: BoardEvent = {
    id: e.event_id,
    sportId: e.sport_id,
    startsAt: e.event_date,
    teams: e.teams,
    rotationAway: e.rotation_number_away,
    rotationHome: e.rotation_number_home,
    score: e.score,
    liveGameState: e.live_game_state,
    sides: new Map(),
    quotes: new Map(),
  };
  for (const m of e.markets) {
    const logical = logicalMarketId(m.market_id);
    if (!CORE_IDS.has(logical) || m.period_id !== 0) continue;
    for (const p of m.participants) {
      const role = roleOf(e.teams, logical, p.type, p.id);
      addSide(ev, logical, { participantId: p.id, name: p.name || defaultName(ev, role, p.id), role });
      for (const line of p.lines)
        for (const [aff, price] of Object.entries(line.prices)) {
          if (!price.is_main_line) continue;
          setQuote(ev, m.market_id, p.id, Number(aff), {
            priceId: price.id,
            line: line.value,
            price: price.price,
            closed: openPriceIds !== undefined && !openPriceIds.has(price.id),
            updatedAt: price.updated_at,
          });
        }
    }
  }
  return ev;
}

/**
 * Marks closed every quote whose price is not among `openPriceIds` (the same snapshot read with
 * `hide_closed=true`). Answers the logical market and participant of each quote it closed.
 */
export function closeMissing(
  ev: BoardEvent,
  openPriceIds: ReadonlySet<string>,
): { logical: number; participantId: number }[] {
  const closed: { logical: number; participantId: number }[] = [];
  for (const [key, pair] of ev.quotes)
    for (const q of [pair.pre, pair.live])
      if (q && !q.closed && !openPriceIds.has(q.priceId)) {
        q.closed = true;
        const [logical, participantId] = key.split(':').map(Number);
        closed.push({ logical: logical!, participantId: participantId! });
      }
  return closed;
}

/** The price ids of a snapshot, to tell its open prices from its closed ones (boardEvent). */
export function priceIds(events: readonly Event[]): Set<string> {
  const ids = new Set<string>();
  for (const e of events)
    for (const m of e.markets)
      for (const p of m.participants)
        for (const l of p.lines) for (const price of Object.values(l.prices)) ids.add(price.id);
  return ids;
}

/** The quote a cell shows: the in-play one while it is open, else the prematch one while open, else the latest. */
export function shownQuote(
  ev: BoardEvent,
  logical: number,
  participantId: number,
  affiliateId: number,
): Quote | undefined {
  const pair = ev.quotes.get(quoteKey(logical, participantId, affiliateId));
  if (!pair) return undefined;
  if (pair.live && !pair.live.closed) return pair.live;
  if (pair.pre && !pair.pre.closed) return pair.pre;
  return pair.live ?? pair.pre;
}

export interface QuoteChange {
  logical: number;
  participantId: number;
  affiliateId: number;
  before: Quote | undefined;
  after: Quote | undefined;
}

/**
 * Applies a main-line price row of the markets stream. Answers what the cell showed before and
 * shows now, or undefined when the row is not one of the screen's markets or not a main line.
 */
export function applyPrice(ev: BoardEvent, row: MarketPrice): QuoteChange | undefined {
  const logical = logicalMarketId(row.market_id);
  if (!CORE_IDS.has(logical) || !row.is_main_line) return undefined;
  const participantId = row.normalized_market_participant_id;
  if (!ev.sides.get(logical)?.some((s) => s.participantId === participantId)) {
    const type = row.normalized_market_participant_type === 1 ? 'TYPE_TEAM' : 'TYPE_RESULT';
    const role = roleOf(ev.teams, logical, type, participantId);
    addSide(ev, logical, { participantId, name: defaultName(ev, role, participantId), role });
  }
  const before = shownQuote(ev, logical, participantId, row.affiliate_id);
  setQuote(ev, row.market_id, participantId, row.affiliate_id, {
    priceId: String(row.id),
    line: row.line,
    price: Number(row.price),
    closed: (row.closed_at ?? '') !== '',
    updatedAt: row.updated_at,
  });
  return {
    logical,
    participantId,
    affiliateId: row.affiliate_id,
    before,
    after: shownQuote(ev, logical, participantId, row.affiliate_id),
  };
}

/** How good a line is for the side that bets it: a bigger number is better. */
function lineMerit(kind: CoreKind, role: SideRole, line: string): number {
  const n = Number(line);
  if (kind === 'moneyline' || !Number.isFinite(n)) return 0;
  if (kind === 'total') return role === 'under' ? n : -n;
  return n;
}

/**
 * The books offering the best open price of a side: the best line for the bettor first (more
 * points on a spread, a lower total for the over), then the best payout. Off-board and closed
 * quotes never compete. Empty when fewer than two books quote the side.
 */
export function bestBooks(
  ev: BoardEvent,
  kind: CoreKind,
  logical: number,
  side: Side,
  affiliateIds: readonly number[],
): Set<number> {
  let best: [number, number] | undefined;
  let quoted = 0;
  const ranked: [number, number, number][] = [];
  for (const aff of affiliateIds) {
    const q = shownQuote(ev, logical, side.participantId, aff);
    if (!q || q.closed) continue;
    const pay = payout(q.price);
    if (pay === undefined) continue;
    quoted++;
    const merit = lineMerit(kind, side.role, q.line);
    ranked.push([aff, merit, pay]);
    if (!best || merit > best[0] || (merit === best[0] && pay > best[1])) best = [merit, pay];
  }
  if (quoted < 2 || !best) return new Set();
  return new Set(ranked.filter(([, m, p]) => m === best![0] && p === best![1]).map(([aff]) => aff));
}

/** Whether a price move is better (up) or worse (down) for the bettor; undefined when not comparable. */
export function moveDirection(before: Quote | undefined, after: Quote | undefined): 'up' | 'down' | undefined {
  if (!before || !after) return undefined;
  const a = payout(before.price);
  const b = payout(after.price);
  if (a === undefined || b === undefined || a === b) return undefined;
  return b > a ? 'up' : 'down';
}
