import type { CatalogRecord } from '../catalog/records.ts';
import type { FuturesHeader, FuturesSettlement } from '../domain/futures.ts';
import type { SeasonStats } from '../domain/season-stats.ts';
import type { DeltaRow, EventInfo, ParticipantType, PriceExtras, Score } from '../domain/types.ts';

/**
 * The change log: one sequence of every change the ledger commits. Each row has a global integer
 * id in commit order; readers (the board, delayed views, the delta feeds, streams, other nodes)
 * all consume these rows and nothing else. A new kind is added here, and the exhaustive switches
 * over `ChangeKind` (decodeChange, applyChange) fail to compile until every reader handles it.
 */

export const CHANGE_KINDS = [
  'event',
  'score',
  'price',
  'play',
  'stat',
  'futures_board',
  'futures_price',
  'futures_settlement',
  'catalog',
  'season',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * Whether rows of a kind change an event of the board's event map (an odds-screen event): the
 * event delta feeds list those. Futures rows change a futures board, which is not such an event.
 */
export function changesEvent(kind: ChangeKind): boolean {
  switch (kind) {
    case 'event':
    case 'score':
    case 'price':
    case 'play':
    case 'stat':
      return true;
    case 'futures_board':
    case 'futures_price':
    case 'futures_settlement':
    case 'catalog':
    case 'season':
      return false;
    default:
      return assertNever(kind);
  }
}

/**
 * The event id every catalog row carries: no event of a feed can have it (ingest ids are
 * [A-Za-z0-9_.:-], the simulator's hex), so no event read, archive or pack ever meets these rows.
 */
export const CATALOG_EVENT_ID = '#catalog';

/** The event id every season row carries (a source's season aggregate): no event can have it either. */
export const SEASON_EVENT_ID = '#season';

/** The kinds that change futures boards. */
export function isFuturesKind(kind: ChangeKind): kind is 'futures_board' | 'futures_price' | 'futures_settlement' {
  return kind === 'futures_board' || kind === 'futures_price' || kind === 'futures_settlement';
}

/**
 * What a futures row replaces within its board: the newest row of each key is the board's current
 * state (a restart loads those only). A price row's participant is read from its payload.
 */
export function futuresRowKey(row: Pick<ChangeRecord, 'kind' | 'market_id' | 'affiliate_id' | 'payload'>): string {
  if (row.kind !== 'futures_price') return row.kind;
  const participant = (JSON.parse(row.payload) as FuturesPriceFact).participant_id;
  return `${row.market_id}|${row.affiliate_id}|${participant}`;
}

/**
 * One stored row of the change log. `payload` is the change serialised once, at commit. Futures
 * rows name their board's id as event_id; they are not events of the odds screen (changesEvent).
 */
export interface ChangeRecord {
  id: number;
  kind: ChangeKind;
  event_id: string;
  sport_id: number;
  /** The time the change describes (a back-filled row can lie in the past). */
  at: string;
  /** Wall-clock time of the commit in epoch ms; never decreases along the id sequence. */
  committed_ms: number;
  /** Price rows only: the market_line_price id, its book and market. */
  price_id: number | null;
  affiliate_id: number | null;
  market_id: number | null;
  /** The row as served: for price rows exactly the spec's Delta row, serialised once. */
  payload: string;
  /** Price rows: what the board and history need beyond the Delta row (ids, delta, liquidity). */
  detail: string | null;
}

/**
 * A position in the log. `epoch` names the log itself: a random id stored when the log begins and
 * made anew when it is reset or restored, so a client holding a position from another log can tell
 * that its id means nothing here.
 */
export interface LogPosition {
  id: number;
  epoch: string;
}

/**
 * The ids a restored log skipped when it began its epoch: the copy ended at `from` and the epoch's
 * own rows are above `to`. The server the copy was taken from may have handed out cursors above
 * `from` for rows the copy lacks; every one of them below `to` is refused (no row has those ids), so
 * an old cursor is never read as a position in this log. Cursors at or below `from` name the same
 * rows in both logs.
 */
export interface EpochGap {
  from: number;
  to: number;
  /** The epoch that began after the gap. */
  epoch: string;
}

/** Event header as a feed sends it: everything of an event but its score and live state. */
export type EventHeader = Omit<EventInfo, 'score' | 'live_game_state'>;

/** One book's price on one line as a price row leaves it: all a board needs to hold it. */
export interface PriceFact extends PriceExtras {
  id: number;
  event_id: string;
  market_id: number;
  period_id: number;
  /** Instance id of the market on its event (the `id` of a Market). */
  market_instance_id: number;
  participant_id: number;
  participant_type: ParticipantType;
  participant_name: string;
  line: string;
  line_id: string;
  /** market_line_price id. */
  price_id: number;
  affiliate_id: number;
  price: number;
  is_main_line: boolean;
  closed_at: string;
  updated_at: string;
  price_delta: number;
  /** On the row that moved the book's main line here: the line value it moved from. */
  moved_from?: string;
}

/** A row of the log decoded: what applying it to a board means. */
export type Change =
  | { kind: 'event'; id: number; header: EventHeader }
  | {
      kind: 'score';
      id: number;
      event_id: string;
      score: Score | undefined;
      /** Replaces the live state; null clears it; absent keeps it. */
      live_game_state?: Record<string, unknown> | null;
    }
  | { kind: 'price'; id: number; fact: PriceFact }
  /** A play: its payload is the Play as served. */
  | { kind: 'play'; id: number; event_id: string; sequence: number }
  /** One box-score value as it now is: a team's (player_id null) or a player's. */
  | { kind: 'stat'; id: number; event_id: string; stat: StatValue }
  | { kind: 'futures_board'; id: number; header: FuturesHeader; at: string }
  | { kind: 'futures_price'; id: number; fact: FuturesPriceFact }
  | { kind: 'futures_settlement'; id: number; event_id: string; settlement: FuturesSettlement }
  /** A catalog record (sport, book, market definition, league, team, roster): its payload as stored. */
  | { kind: 'catalog'; id: number; record: CatalogRecord; text: string }
  /** A team's season aggregate as a source publishes it, whole: its payload as stored. */
  | { kind: 'season'; id: number; committed_ms: number; season: SeasonStats; text: string };

/** A stat row's payload: one value of an event's box score after a play changed it. */
export interface StatValue {
  team_id: number;
  /** Absent on a team's value. */
  player_id?: number;
  stat_id: number;
  /** A string, as the spec's stat values are ('' on a removal). */
  value: string;
  /**
   * The value is taken away (a `box_score` record with `whole`, docs/feeds.md): the box no longer
   * lists it, and a player left with no value leaves the box.
   */
  removed?: true;
  /** On the first row of a player's line: who the player is. */
  display_name?: string;
  position?: string;
}

/**
 * One book's price on one participant of a futures board: the payload of a futures_price row as
 * stored and as applied. These rows carry no price_id, so the markets delta and the price history
 * (which read rows with one) never see them.
 */
export interface FuturesPriceFact {
  id: number;
  event_id: string;
  sport_id: number;
  market_id: number;
  participant_id: number;
  affiliate_id: number;
  price: number;
  /** '' on a board's first price of this book and participant. */
  previous_price: number | '';
  price_delta: number;
  updated_at: string;
}

/** What a price row records beyond the spec's Delta row (the `detail` of its record). */
export interface PriceDetail extends PriceExtras {
  price_id: number;
  period_id: number;
  market_instance_id: number;
  line_id: string;
  price_delta: number;
  /** The line value the book's main line moved from, on the row that moved it. */
  moved_from?: string;
  /** Price, closure and main-line flag as before: the row only moved liquidity or the source id. */
  quote_unchanged?: true;
}

export function assertNever(x: never): never {
  throw new Error(`unhandled change kind: ${JSON.stringify(x)}`);
}

/** Distinct timestamps remembered by `sharedTime` before it starts over. */
const TIMES_KEPT = 16_384;
const times = new Map<string, string>();

/**
 * One string per distinct timestamp among decoded rows. The board keeps every price's times, and
 * the rows of one commit share one: a board loaded from the log held 316,000 copies of about 3,400
 * values (12 MB of a 112 MB heap in a snapshot), where the ledger's own rows share one string each.
 */
function sharedTime(s: string): string {
  const known = times.get(s);
  if (known !== undefined) return known;
  if (times.size >= TIMES_KEPT) times.clear();
  times.set(s, s);
  return s;
}

/** Reads a stored row back into its change (a restart, a follower node, a replay). */
export function decodeChange(row: ChangeRecord): Change {
  switch (row.kind) {
    case 'event':
      return { kind: 'event', id: row.id, header: JSON.parse(row.payload) as EventHeader };
    case 'score': {
      const u = JSON.parse(row.payload) as {
        score?: Score;
        live_game_state?: Record<string, unknown> | null;
      };
      const change: Change = { kind: 'score', id: row.id, event_id: row.event_id, score: u.score };
      if (u.live_game_state !== undefined) change.live_game_state = u.live_game_state;
      return change;
    }
    case 'price': {
      const d = JSON.parse(row.payload) as DeltaRow;
      const x = JSON.parse(row.detail ?? '{}') as PriceDetail;
      const fact: PriceFact = {
        id: row.id,
        event_id: d.event_id,
        market_id: d.market_id,
        period_id: x.period_id,
        market_instance_id: x.market_instance_id,
        participant_id: d.participant_id,
        participant_type: d.participant_type,
        participant_name: d.participant_name,
        line: d.line,
        line_id: x.line_id,
        price_id: x.price_id,
        affiliate_id: d.affiliate_id,
        price: Number(d.price),
        is_main_line: d.is_main_line,
        closed_at: sharedTime(d.closed_at),
        updated_at: sharedTime(d.updated_at),
        price_delta: x.price_delta,
      };
      if (x.liquidity_usd !== undefined) fact.liquidity_usd = x.liquidity_usd;
      if (x.source_id !== undefined) fact.source_id = x.source_id;
      if (x.moved_from !== undefined) fact.moved_from = x.moved_from;
      return { kind: 'price', id: row.id, fact };
    }
    case 'play': {
      const play = JSON.parse(row.payload) as { sequence: number };
      return { kind: 'play', id: row.id, event_id: row.event_id, sequence: play.sequence };
    }
    case 'stat':
      return { kind: 'stat', id: row.id, event_id: row.event_id, stat: JSON.parse(row.payload) as StatValue };
    case 'futures_board':
      return { kind: 'futures_board', id: row.id, header: JSON.parse(row.payload) as FuturesHeader, at: row.at };
    case 'futures_price':
      return {
        kind: 'futures_price',
        id: row.id,
        fact: { ...(JSON.parse(row.payload) as FuturesPriceFact), id: row.id },
      };
    case 'futures_settlement':
      return {
        kind: 'futures_settlement',
        id: row.id,
        event_id: row.event_id,
        settlement: JSON.parse(row.payload) as FuturesSettlement,
      };
    case 'catalog':
      return { kind: 'catalog', id: row.id, record: JSON.parse(row.payload) as CatalogRecord, text: row.payload };
    case 'season':
      return {
        kind: 'season',
        id: row.id,
        committed_ms: row.committed_ms,
        season: JSON.parse(row.payload) as SeasonStats,
        text: row.payload,
      };
    default:
      return assertNever(row.kind);
  }
}

/**
 * A batch as the ledger committed it. Its rows span ids (fromId, headId] with no gap, so a listener
 * that remembers the last headId it saw detects a missed batch: the next batch's fromId differs.
 */
export interface CommittedBatch {
  epoch: string;
  /** The head before this batch: the batch holds every id above it up to headId. */
  fromId: number;
  /** The head after this batch: its last id. */
  headId: number;
  changes: ChangeRecord[];
  /** Events touched by the batch. */
  eventIds: string[];
}

const PERIOD_MEMBER = '"period_id":';
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * The period id of a price row, read from its detail without parsing the whole of it: the integer
 * after the first `"period_id":` that one follows, else 0. Read a character at a time, as every
 * price row the server receives passes here: a regular expression's match made about 130 bytes of
 * garbage a row (docs/benchmarks.md).
 */
export function periodOfDetail(detail: string | null): number {
  if (detail === null) return 0;
  for (let at = detail.indexOf(PERIOD_MEMBER); at >= 0; at = detail.indexOf(PERIOD_MEMBER, at + 1)) {
    let i = at + PERIOD_MEMBER.length;
    const negative = detail.charCodeAt(i) === MINUS;
    if (negative) i++;
    const first = i;
    let value = 0;
    for (let c = detail.charCodeAt(i); c >= ZERO && c <= NINE; c = detail.charCodeAt(++i))
      value = value * 10 + (c - ZERO);
    if (i === first) continue;
    // Past 15 digits the sum above may round otherwise than Number does.
    if (i - first > 15) value = Number(detail.slice(first, i));
    return negative ? -value : value;
  }
  return 0;
}

/** The time a row becomes visible to a plan delayed by `delayMs`: the time it describes, never later than its commit. */
export function describedMs(row: Pick<ChangeRecord, 'at' | 'committed_ms'>): number {
  // The rows of a batch share one time: parse it once.
  if (row.at !== lastAt) {
    lastAt = row.at;
    lastAtMs = Date.parse(row.at);
  }
  return Number.isNaN(lastAtMs) ? row.committed_ms : Math.min(lastAtMs, row.committed_ms);
}

let lastAt = '';
let lastAtMs = Number.NaN;
