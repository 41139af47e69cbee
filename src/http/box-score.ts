import type { EventState, GameState, PlayerLine } from '../board/event-state.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { SportStat } from '../catalog/stats.ts';
import type { EventInfo } from '../domain/types.ts';
import { type ByteBudget, stringBytes } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping, objectMemo } from '../perf/fresh-cache.ts';
import { keptExtraBytes } from './encoding.ts';
import type { LaneAnswer } from './fast-lane.ts';
import type { Static } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { boxText, type Group, type PlayerHead, type SerializedBox, type StatsById } from '../perf/stats-text.ts';
import { pick } from '../perf/switch.ts';
import { PlayerGameStatsSchema, TeamGameStatsSchema } from './stats-schemas.ts';

export type { Group, Row, SerializedBox } from '../perf/stats-text.ts';

/**
 * The box-score responses (spec: Team game stats, Player game stats), serialised once per change of
 * an event's box and kept as pieces: each team's and each player's group opening, and each stat row
 * on its own, so any `stats_ids`, `team_id` or `player_ids` filter is a join of kept strings. The
 * pieces are written by hand (perf/stats-text.ts), or by the schemas' serialisers (`schemaBox`).
 */

/** What a filtered box response holds. */
export interface BoxBody {
  json: string | Buffer;
  /** Stat values in it: the data points it costs. */
  values: number;
}

/** Where a box's players' names and jerseys, and its stats' definitions, come from: the current catalog. */
export type BoxPlayers = Pick<Catalog, 'player' | 'statById'>;

/**
 * A player's group header: the spec's fields (the display name and position the stat rows brought),
 * and the sport, names and jersey existing clients read, from the current catalog's rosters (a
 * player they do not list is split from the display name, no jersey).
 */
function playerHead(players: BoxPlayers, id: number, line: PlayerLine, sportId: number): PlayerHead {
  const listed = players.player(id);
  const space = line.display_name.indexOf(' ');
  return {
    id,
    display_name: line.display_name,
    position: line.position,
    team_id: line.team_id,
    sport_id: sportId,
    first_name: listed?.first_name ?? (space < 0 ? line.display_name : line.display_name.slice(0, space)),
    last_name: listed?.last_name ?? (space < 0 ? '' : line.display_name.slice(space + 1)),
    jersey: listed?.jersey_number ?? '',
  };
}

/** The stat rows of `stats` the catalog (`defs`) knows, by stat id. */
export function knownStats(defs: StatsById, stats: ReadonlyMap<number, number> | undefined): [SportStat, number][] {
  return [...(stats?.keys() ?? [])]
    .sort((a, b) => a - b)
    .flatMap((statId) => {
      const stat = defs.statById(statId);
      return stat ? [[stat, stats!.get(statId)!] as [SportStat, number]] : [];
    });
}

const statRef = (s: SportStat) => ({
  id: s.id,
  name: s.name,
  display_name: s.display_name,
  abbreviation: s.abbreviation,
  sport_id: s.sport_id,
});

/**
 * A group's pieces cut from what the schema's serialisers write: the group with no rows up to its
 * `"stats":[`, and each row on its own.
 */
export function groupPieces<G extends { stats: unknown[] }>(
  id: number,
  group: G,
  whole: (g: G) => string,
  row: (r: G['stats'][number]) => string,
  statId: (r: G['stats'][number]) => number,
): Group {
  const empty = whole({ ...group, stats: [] });
  if (!empty.endsWith('"stats":[]}')) throw new Error(`stats is not the group's last field: ${empty}`);
  return { id, head: empty.slice(0, -2), rows: group.stats.map((r) => ({ statId: statId(r), json: row(r) })) };
}

type TeamGroup = Static<typeof TeamGameStatsSchema>[number];
type PlayerGroup = Static<typeof PlayerGameStatsSchema>[number];
const teamGroupJson = fastJson(TeamGameStatsSchema.items);
const teamRowJson = fastJson(TeamGameStatsSchema.items.properties.stats.items);
const playerGroupJson = fastJson(PlayerGameStatsSchema.items);
const playerRowJson = fastJson(PlayerGameStatsSchema.items.properties.stats.items);

/** The plain twin of perf/stats-text.ts `boxText`: each group as the schema's object, through its serialiser. */
export function schemaBox(
  info: EventInfo,
  game: GameState | undefined,
  complete: boolean,
  names: BoxPlayers,
): SerializedBox {
  const meta = { complete, event_id: info.event_id };
  const teams = info.teams.map((t) => {
    const group: TeamGroup = {
      team: {
        team_id: t.team_id,
        name: t.name,
        mascot: t.mascot,
        abbreviation: t.abbreviation,
        is_away: t.is_away,
        is_home: t.is_home,
      },
      meta,
      stats: knownStats(names, game?.teams.get(t.team_id)).map(([stat, value]) => ({
        team_id: t.team_id,
        stat_id: stat.id,
        stat: statRef(stat),
        event_id: info.event_id,
        value: String(value),
      })),
    };
    return groupPieces(t.team_id, group, teamGroupJson, teamRowJson, (r) => r.stat_id);
  });
  const players: Group[] = [];
  // Away team's players first, then home's, each in the order they first appeared.
  for (const t of info.teams) {
    for (const [id, line] of game?.players ?? []) {
      if (line.team_id !== t.team_id) continue;
      const group: PlayerGroup = {
        player: playerHead(names, id, line, info.sport_id),
        meta,
        stats: knownStats(names, line.stats).map(([stat, value]) => ({ stat: statRef(stat), value: String(value) })),
      };
      players.push(groupPieces(id, group, playerGroupJson, playerRowJson, (r) => r.stat.id));
    }
  }
  return { teams, players };
}

type SerializeBox = (
  info: EventInfo,
  game: GameState | undefined,
  complete: boolean,
  names: BoxPlayers,
) => SerializedBox;

/** The trick: the pieces written by hand (perf/stats-text.ts). */
export const writtenBox: SerializeBox = (info, game, complete, names) =>
  boxText(info, game, complete, (id, line, sportId) => playerHead(names, id, line, sportId), names);

/** The box of an event as groups of serialised pieces; `complete` once the event is final; players named by `names`. */
export const serializeBox: SerializeBox = pick(writtenBox, schemaBox);

/** A whole body: its bytes, as the router and the fast lane send them. */
export interface WholeBody extends BoxBody {
  json: Buffer;
}

/**
 * Every group with every row, encoded once per serialised box (a new box is new arrays, so a memo
 * lives as long as its box): the usual request asks for the whole box, and joining and encoding its
 * pieces on every request cost three times what sending it does.
 */
export const wholeBody = objectMemo((groups: readonly Group[]): WholeBody => {
  const body = joined(groups, undefined, undefined);
  return { json: Buffer.from(body.json), values: body.values };
});

/** The groups kept by `groupIds` (all when undefined), each with the rows of `statIds` (all when undefined). */
export function boxBody(
  groups: readonly Group[],
  groupIds: ReadonlySet<number> | undefined,
  statIds: ReadonlySet<number> | undefined,
): BoxBody {
  return groupIds || statIds ? joined(groups, groupIds, statIds) : wholeBody(groups);
}

function joined(
  groups: readonly Group[],
  groupIds: ReadonlySet<number> | undefined,
  statIds: ReadonlySet<number> | undefined,
): { json: string; values: number } {
  const parts: string[] = [];
  let values = 0;
  for (const g of groups) {
    if (groupIds && !groupIds.has(g.id)) continue;
    const rows = statIds ? g.rows.filter((r) => statIds.has(r.statId)) : g.rows;
    values += rows.length;
    parts.push(`${g.head}${rows.map((r) => r.json).join(',')}]}`);
  }
  return { json: `[${parts.join(',')}]`, values };
}

/** What a serialised box is current for. */
interface BoxToken {
  /** The id of the event's last stat row. */
  version: number;
  complete: boolean;
  /**
   * The event's teams the box was serialised with: an event row (a renamed team, a new
   * abbreviation) replaces this array, a score row keeps it.
   */
  teams: EventInfo['teams'];
  /** The catalog's version (raised by every change of it): a roster record renames players. */
  catalog: number;
}

/** Heap bytes of a BoxToken. */
const BOX_TOKEN_BYTES = 32;

/** Bytes of a cached box besides its strings (measured roughly: arrays, objects). */
const BOX_OVERHEAD = 256;
const ROW_OVERHEAD = 48;

/** What kept groups cost the byte budget, roughly: their pieces, and the whole body encoded from them. */
export function groupsBytes(groups: Iterable<Group>): number {
  let bytes = BOX_OVERHEAD;
  for (const g of groups) {
    bytes += stringBytes(g.head) + ROW_OVERHEAD + Buffer.byteLength(g.head);
    for (const r of g.rows) bytes += stringBytes(r.json) + ROW_OVERHEAD + Buffer.byteLength(r.json);
  }
  return bytes;
}

/** Where the caller's view, the live board and the UTC day (which decides the current season) stand. */
export interface Standing {
  head: number;
  liveHead: number;
  day: number;
  /** The catalog's version: a catalog change (a renamed player) reaches no view head of a delayed plan. */
  catalog: number;
}

/**
 * A stats answer kept for one request URL and data delay: current while all stands where it stood.
 * Its rules per caller (the stats-access policy) come with `lane`.
 */
export interface KeptStatsAnswer extends Standing {
  /** The body as the fast lane sends it, made once with it rather than on every poll. */
  lane: LaneAnswer;
}

/** Bytes of a kept answer besides its body and key. */
const KEPT_ANSWER_BYTES = 200;

/**
 * Whole stats answers per (data delay, request URL): polls come many per commit, and these answer
 * them without reading, joining or encoding again. A use of the one fresh cache
 * (src/perf/fresh-cache.ts) whose token is where the views and the day stand. Entries draw from the
 * shared byte budget, the body counted again: it outlives the box or season it was encoded from
 * once that is pushed out.
 */
export class KeptStatsAnswers<T extends KeptStatsAnswer> {
  private readonly answers: FreshCache<string, Standing, T>;

  /** `current`: what else an answer needs to be current besides where all stands. */
  constructor(budget: ByteBudget, current: (kept: T) => boolean = () => true, keeping: Keeping = KEEPING) {
    this.answers = freshCache(
      budget,
      {
        current: (kept, now, answer) =>
          kept.head === now.head &&
          kept.liveHead === now.liveHead &&
          kept.day === now.day &&
          kept.catalog === now.catalog &&
          current(answer),
      },
      keeping,
    );
  }

  /** The answer kept under `key` if all still stands as it stood for it. */
  get(key: string, now: Standing): T | undefined {
    return this.answers.get(key, now);
  }

  /** The answer last kept under `key`, current or not: a refill reuses its gzip bytes when it shows the same. */
  previous(key: string): T | undefined {
    return this.answers.last(key);
  }

  set(key: string, answer: T): void {
    this.answers.set(key, answer, answer, KEPT_ANSWER_BYTES + answer.lane.body.length + keptExtraBytes(answer.lane));
  }
}

/**
 * A whole box body (no filter) as one request URL was answered from the live board's kept box; also
 * current only while the event is still on the live board (archiving takes it off without a
 * commit). What the fast lane answers the URL again from.
 */
export interface BoxResponse extends KeptStatsAnswer {
  eventId: string;
}

/**
 * Serialised boxes per event, replaced when the event's box, completeness or teams change; entries
 * draw from the shared byte budget, least recently used out first.
 */
export class BoxCache {
  /** Per event, for its box's version, completeness and teams (the token). */
  private readonly boxes: FreshCache<string, BoxToken, SerializedBox>;
  /** Whole box bodies per (data delay, request URL). */
  readonly responses: KeptStatsAnswers<BoxResponse>;

  /**
   * `live`: the live board, which a kept whole body's event must still be on; `names`: the current
   * catalog, whose rosters name the players.
   */
  constructor(
    budget: ByteBudget,
    live: { getEvent(eventId: string): unknown },
    private readonly names: BoxPlayers & { readonly version: number },
    keeping: Keeping = KEEPING,
  ) {
    this.boxes = freshCache(
      budget,
      {
        current: (kept, now) =>
          kept.version === now.version &&
          kept.complete === now.complete &&
          kept.teams === now.teams &&
          kept.catalog === now.catalog,
      },
      keeping,
    );
    // Archiving takes an event off the live board without a commit: its kept body is not current then.
    this.responses = new KeptStatsAnswers(budget, (kept) => live.getEvent(kept.eventId) !== undefined, keeping);
  }

  box(ev: EventState, complete: boolean): SerializedBox {
    const token: BoxToken = {
      version: ev.game?.version ?? 0,
      complete,
      teams: ev.info.teams,
      catalog: this.names.version,
    };
    const hit = this.boxes.get(ev.info.event_id, token);
    if (hit) return hit;
    const box = serializeBox(ev.info, ev.game, complete, this.names);
    this.boxes.set(ev.info.event_id, token, box, BOX_TOKEN_BYTES + groupsBytes([...box.teams, ...box.players]));
    return box;
  }
}
