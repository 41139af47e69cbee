import type { BoardView } from '../board/board-view.ts';
import type { ChangeRecord, PriceDetail, StatValue } from '../changelog/change.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { DeltaRow, ParticipantType, Score } from '../domain/types.ts';
import {
  type EventLines,
  eventLines,
  familyOf,
  type LineBooks,
  LineSetBuilder,
  type V1Period,
  v1PeriodOf,
} from '../projection/v1-line-sets.ts';
import type { Channel } from './channels.ts';
import { LineFrame } from './line-frames.ts';

/**
 * Frames: what the streams send for the rows of the change log, made once per row (or per run of an
 * event's stat rows) and shared by every subscriber that matches. A frame's `data` is serialised
 * on first use and the same text goes to every connection; only the envelope around it (the
 * subscription id and its sequence) is written per subscriber.
 *
 * The same function turns live batches and rows read back from the store (a resume) into frames,
 * so a replayed delta is the delta that was sent live.
 */

/** The channels of the index: the multiplexed ones and `lines`, the V1 stream's line sets (line-frames.ts). */
export type StreamChannel = Channel | 'lines';

/** Spec: normalized_market_participant_type is a number. */
const PARTICIPANT_TYPE_NUMBER: Record<ParticipantType, number> = { TYPE_TEAM: 1, TYPE_PLAYER: 2, TYPE_RESULT: 3 };

/** A run of stat rows of one event longer than this goes out as an invalidation, not as rows. */
export const MAX_STAT_ROWS_PER_FRAME = 500;

abstract class BaseFrame {
  private json?: string;
  constructor(
    /** Change id of the frame's last row: its position in the log. */
    readonly id: number,
    readonly eventId: string,
    readonly sportId: number,
  ) {}
  /** The message's `kind` in the multiplexed delta envelope. */
  abstract readonly kind: string;
  /** Data points one delivery costs (spec: Metering). */
  abstract readonly points: number;
  protected abstract serialise(): string;
  /** The data, serialised once. */
  get data(): string {
    this.json ??= this.serialise();
    return this.json;
  }
}

/** One book's price on one line changed (a price row). */
export class MarketFrame extends BaseFrame {
  readonly kind = 'market_price';
  readonly points = 1;
  readonly affiliateId: number;
  readonly marketId: number;
  readonly periodId: number;
  readonly isMainLine: boolean;
  readonly participantType: ParticipantType;
  /** market_line_price id: one book on one line, the key conflation keeps the latest of. */
  readonly priceId: number;
  /** Only liquidity or the source id moved: no message (spec). */
  readonly quoteUnchanged: boolean;
  /** The main-line flag moved while the price stayed: main_line subscribers wait for the next price. */
  readonly designationOnly: boolean;
  private dedicated?: string;

  constructor(
    row: ChangeRecord,
    private readonly delta: DeltaRow,
    private readonly detail: PriceDetail,
  ) {
    super(row.id, row.event_id, row.sport_id);
    this.affiliateId = delta.affiliate_id;
    this.marketId = delta.market_id;
    this.periodId = detail.period_id;
    this.isMainLine = delta.is_main_line;
    this.participantType = delta.participant_type;
    this.priceId = detail.price_id;
    this.quoteUnchanged = detail.quote_unchanged === true;
    this.designationOnly = delta.change_type === 'line_change' && delta.price === delta.previous_price;
  }

  /** The spec's market_price data (every field of its table, plus closed_at). */
  protected serialise(): string {
    const d = this.delta;
    const x = this.detail;
    const liquidity = x.liquidity_usd === undefined ? '' : `,"liquidity_usd":${x.liquidity_usd}`;
    return (
      `{"id":${x.price_id},"event_id":${JSON.stringify(d.event_id)},"affiliate_id":${d.affiliate_id}` +
      `,"market_id":${d.market_id},"market_participant_id":${d.participant_id}` +
      `,"normalized_market_participant_id":${d.participant_id}` +
      `,"normalized_market_participant_type":${PARTICIPANT_TYPE_NUMBER[d.participant_type]}` +
      `,"line":${JSON.stringify(d.line)},"price":"${d.price}","previous_price":"${d.previous_price}"` +
      `,"price_delta":${x.price_delta},"is_main_line":${d.is_main_line},"sport_id":${d.sport_id}` +
      `,"updated_at":${JSON.stringify(d.updated_at)},"closed_at":${JSON.stringify(d.closed_at)}` +
      `${liquidity},"snapshot":false}`
    );
  }

  /** The dedicated stream's whole message, serialised once; `timestamp` in Unix seconds. */
  dedicatedMessage(timestamp: number): string {
    this.dedicated ??= `{"meta":{"type":"market_price","version":"v2","timestamp":${timestamp}},"data":${this.data}}`;
    return this.dedicated;
  }
}

/** A score row: the score and, when it moved, the live game state. */
export class ScoreFrame extends BaseFrame {
  readonly kind = 'score';
  readonly points = 1;
  readonly score: Score | undefined;
  /** Present when the row changed the live state (null: cleared). */
  readonly liveState: Record<string, unknown> | null | undefined;
  private liveJson?: string;
  private stateJson?: string;

  constructor(row: ChangeRecord) {
    super(row.id, row.event_id, row.sport_id);
    const u = JSON.parse(row.payload) as { score?: Score; live_game_state?: Record<string, unknown> | null };
    this.score = u.score;
    this.liveState = u.live_game_state;
  }

  /** The scores channel's data. */
  protected serialise(): string {
    return `{"event_id":${JSON.stringify(this.eventId)},"sport_id":${this.sportId},"score":${JSON.stringify(this.score ?? null)}}`;
  }

  /** The live channel's data: status and score, and the live state when it moved. */
  get liveData(): string {
    this.liveJson ??= JSON.stringify({
      event_id: this.eventId,
      sport_id: this.sportId,
      event_status: this.score?.event_status ?? null,
      score: this.score ?? null,
      ...(this.liveState === undefined ? {} : { live_game_state: this.liveState }),
    });
    return this.liveJson;
  }

  /** The live-state channel's data (only rows that moved the live state reach it). */
  get stateData(): string {
    this.stateJson ??= JSON.stringify({
      event_id: this.eventId,
      sport_id: this.sportId,
      live_game_state: this.liveState ?? null,
    });
    return this.stateJson;
  }

  get isFinal(): boolean {
    return this.score?.event_status === 'STATUS_FINAL';
  }
}

/** A play: its payload is the Play as served (docs/spec-gaps.md: Plays). */
export class PlayFrame extends BaseFrame {
  readonly kind = 'play';
  readonly points = 1;
  readonly sequence: number;

  constructor(private readonly row: ChangeRecord) {
    super(row.id, row.event_id, row.sport_id);
    this.sequence = (JSON.parse(row.payload) as { sequence: number }).sequence;
  }

  protected serialise(): string {
    return this.row.payload;
  }
}

/**
 * A game_stats frame (spec: Game stats): the changed values of a run of an event's stat rows, one
 * entry per row, upserted by owner id and stat_id; or, past MAX_STAT_ROWS_PER_FRAME rows or for a
 * run that takes a value away (which an upsert cannot say), the invalidation fallback that tells a
 * client to refetch both box resources.
 */
export class StatsFrame extends BaseFrame {
  readonly kind = 'game_stats';
  readonly points: number;
  private readonly invalidates: boolean;

  constructor(
    id: number,
    eventId: string,
    sportId: number,
    private readonly rows: readonly StatValue[],
    private readonly at: string,
    private readonly defs: Pick<Catalog, 'statById'>,
  ) {
    super(id, eventId, sportId);
    this.invalidates = rows.length > MAX_STAT_ROWS_PER_FRAME || rows.some((r) => r.removed);
    // An invalidation costs one point, as a completion marker does.
    this.points = this.invalidates ? 1 : rows.length;
  }

  protected serialise(): string {
    const event = JSON.stringify(this.eventId);
    if (this.invalidates) {
      return `{"event_id":${event},"sport_id":${this.sportId},"updated_at":${Math.floor(Date.parse(this.at) / 1000)}}`;
    }
    const teams = new Map<number, string[]>();
    const players = new Map<number, { team: number; rows: string[] }>();
    for (const r of this.rows) {
      const s = this.defs.statById(r.stat_id);
      const stat = s
        ? JSON.stringify({
            id: s.id,
            name: s.name,
            display_name: s.display_name,
            abbreviation: s.abbreviation,
            sport_id: s.sport_id,
          })
        : 'null';
      const value = JSON.stringify(r.value);
      if (r.player_id === undefined) {
        const list = teams.get(r.team_id) ?? [];
        list.push(
          `{"team_id":${r.team_id},"stat_id":${r.stat_id},"stat":${stat},"event_id":${event},"value":${value}}`,
        );
        teams.set(r.team_id, list);
      } else {
        const p = players.get(r.player_id) ?? { team: r.team_id, rows: [] };
        p.rows.push(`{"player_id":${r.player_id},"stat_id":${r.stat_id},"stat":${stat},"value":${value}}`);
        players.set(r.player_id, p);
      }
    }
    const teamStats = [...teams].map(([team, rows]) => `{"team_id":${team},"stats":[${rows.join(',')}]}`);
    const playerStats = [...players].map(
      ([player, p]) => `{"player_id":${player},"team_id":${p.team},"stats":[${p.rows.join(',')}]}`,
    );
    return (
      `{"event_id":${event},"sport_id":${this.sportId},"updated_at":${JSON.stringify(this.at)}` +
      `,"team_stats":[${teamStats.join(',')}],"player_stats":[${playerStats.join(',')}]}`
    );
  }
}

/** The terminal completion marker of an event's box (spec: Game stats 2), sent when it goes final. */
export class CompletionFrame extends BaseFrame {
  readonly kind = 'game_stats';
  readonly points = 1;

  /** `sport`: the sport's name in the catalog as the frame is made. */
  constructor(
    id: number,
    eventId: string,
    sportId: number,
    private readonly sport: string,
    private readonly at: string,
  ) {
    super(id, eventId, sportId);
  }

  protected serialise(): string {
    return (
      `{"event_id":${JSON.stringify(this.eventId)},"sport":${JSON.stringify(this.sport)},"sport_id":${this.sportId}` +
      `,"complete":true,"updated_at":${JSON.stringify(new Date(Date.parse(this.at)).toISOString())}}`
    );
  }
}

/** A futures row: a board opened or changed, a price, or a settlement; its payload as stored. */
export class FuturesFrame extends BaseFrame {
  readonly points = 1;
  readonly marketId: number | null;
  readonly affiliateId: number | null;

  constructor(
    private readonly row: ChangeRecord,
    readonly kind: 'futures_board' | 'futures_price' | 'futures_settlement',
  ) {
    super(row.id, row.event_id, row.sport_id);
    this.marketId = row.market_id;
    this.affiliateId = row.affiliate_id;
  }

  protected serialise(): string {
    return this.row.payload;
  }
}

export type Frame = MarketFrame | ScoreFrame | PlayFrame | StatsFrame | CompletionFrame | FuturesFrame | LineFrame;

/**
 * What frames name from the current catalog: a sport (the completion marker), a book (line sets).
 * A frame is written once, so it shows the names as they are when it is made.
 */
export type FrameNames = Pick<Catalog, 'sportName' | 'statById'> & LineBooks;

/**
 * The frames of some consecutive rows of the log, in id order. Consecutive stat rows of one event
 * make one game_stats frame positioned at its last row, so positions only rise along a connection
 * and a client that resumes from the last one it saw misses no row. A final score row also yields
 * the completion marker, which names the sport as `names` does.
 */
export function framesOf(rows: readonly ChangeRecord[], names: Pick<FrameNames, 'sportName' | 'statById'>): Frame[] {
  const out: Frame[] = [];
  let stats: { eventId: string; sportId: number; at: string; rows: StatValue[]; lastId: number } | undefined;
  const endStats = () => {
    if (stats) out.push(new StatsFrame(stats.lastId, stats.eventId, stats.sportId, stats.rows, stats.at, names));
    stats = undefined;
  };
  for (const row of rows) {
    if (row.kind === 'stat') {
      if (stats && stats.eventId !== row.event_id) endStats();
      stats ??= { eventId: row.event_id, sportId: row.sport_id, at: row.at, rows: [], lastId: row.id };
      stats.rows.push(JSON.parse(row.payload) as StatValue);
      stats.lastId = row.id;
      continue;
    }
    endStats();
    switch (row.kind) {
      case 'price':
        out.push(
          new MarketFrame(row, JSON.parse(row.payload) as DeltaRow, JSON.parse(row.detail ?? '{}') as PriceDetail),
        );
        break;
      case 'score': {
        const frame = new ScoreFrame(row);
        out.push(frame);
        if (frame.isFinal)
          out.push(new CompletionFrame(row.id, row.event_id, row.sport_id, names.sportName(row.sport_id), row.at));
        break;
      }
      case 'play':
        out.push(new PlayFrame(row));
        break;
      case 'futures_board':
      case 'futures_price':
      case 'futures_settlement':
        out.push(new FuturesFrame(row, row.kind));
        break;
      case 'event':
        // Event headers reach clients through snapshots; the channels carry what moves in play.
        break;
    }
  }
  endStats();
  return out;
}

/** The channels a frame goes to. */
export function channelsOf(frame: Frame): readonly StreamChannel[] {
  if (frame instanceof MarketFrame) return MARKETS;
  if (frame instanceof LineFrame) return LINES;
  if (frame instanceof ScoreFrame) return frame.liveState === undefined ? SCORES : SCORES_AND_STATE;
  if (frame instanceof PlayFrame) return PLAYS;
  if (frame instanceof StatsFrame || frame instanceof CompletionFrame) return STATS;
  return FUTURES;
}

const MARKETS: readonly Channel[] = ['markets'];
const LINES: readonly StreamChannel[] = ['lines'];
const SCORES: readonly Channel[] = ['scores', 'live'];
const SCORES_AND_STATE: readonly Channel[] = ['scores', 'live', 'live_game_state', 'game_state'];
const PLAYS: readonly Channel[] = ['plays', 'live'];
const STATS: readonly Channel[] = ['stats', 'live'];
const FUTURES: readonly Channel[] = ['futures'];

/** The live-state channel under either of its names. */
export const isLiveStateChannel = (channel: StreamChannel): boolean =>
  channel === 'live_game_state' || channel === 'game_state';

/** The data a frame carries on a channel (the live and live-state channels see a score row their own way). */
export function dataFor(frame: Frame, channel: StreamChannel): string {
  if (frame instanceof ScoreFrame) {
    if (channel === 'live') return frame.liveData;
    if (isLiveStateChannel(channel)) return frame.stateData;
  }
  return frame.data;
}

/** The `kind` of a frame on a channel. */
export function kindFor(frame: Frame, channel: StreamChannel): string {
  if (frame instanceof ScoreFrame && isLiveStateChannel(channel)) return 'live_game_state';
  if (frame instanceof ScoreFrame && channel === 'live') return 'live';
  return frame.kind;
}

/**
 * The line frames of a batch, from its price frames: the sets of moneyline, spread and total markets
 * of the eight V1 periods that a price row (other than a liquidity-only one) touched, each built
 * once from the board, which holds exactly this batch's state while the hub receives it.
 */
export function lineFramesOf(frames: readonly Frame[], view: BoardView, books: LineBooks): LineFrame[] {
  const touched = new Map<
    string,
    { id: number; eventId: string; book: number; period: V1Period; markets: Set<string> }
  >();
  for (const f of frames) {
    if (f.kind !== 'market_price' || f.quoteUnchanged) continue;
    const family = familyOf(f.marketId);
    if (family === undefined || family === 'team_total') continue;
    const period = v1PeriodOf({ market_id: f.marketId, period_id: f.periodId });
    if (!period) continue;
    const key = `${f.eventId}|${f.affiliateId}|${period.named.name}`;
    const market = `${f.marketId}:${f.periodId}`;
    const known = touched.get(key);
    if (known) {
      known.id = f.id;
      known.markets.add(market);
    } else touched.set(key, { id: f.id, eventId: f.eventId, book: f.affiliateId, period, markets: new Set([market]) });
  }
  const out: LineFrame[] = [];
  const linesOf = new Map<string, EventLines>();
  for (const t of touched.values()) {
    const state = view.getEvent(t.eventId);
    if (!state) continue;
    let lines = linesOf.get(t.eventId);
    if (!lines) {
      lines = eventLines(state);
      linesOf.set(t.eventId, lines);
    }
    const markets = lines.markets.get(t.period) ?? new Map();
    const used = [...markets]
      .filter(([family]) => family !== 'team_total')
      .map(([, m]) => ({ market_id: m.market_id, period_id: m.period_id }));
    // A set shows one market per family: a row of another one of the period changed nothing in it.
    if (!used.some((m) => t.markets.has(`${m.market_id}:${m.period_id}`))) continue;
    const builder = new LineSetBuilder(state, books);
    const set = builder.lineSet(t.period, markets, t.book, lines.lineIds.get(t.period)?.get(t.book) ?? 0);
    out.push(new LineFrame(t.id, t.eventId, state.info.sport_id, t.book, set, used, builder.prices));
  }
  return out;
}
