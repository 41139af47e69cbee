import { CHANGE_KINDS, type FuturesPriceFact, type StatValue } from '../../changelog/change.ts';
import type { SeasonStats } from '../../domain/season-stats.ts';
import type { ChangeKind, ChangeQuery, ChangeRecord } from '../store.ts';
import { type SqlDialect, type SqlText, sqlText } from './dialect.ts';
import { fieldsOf } from './row-codec.ts';

/**
 * The change log, `changes`: a row is a ChangeRecord, selected by `changeColumns` in either dialect
 * (SQLite looks the event's id up from its key). The commits write the rows themselves, each
 * binding the fields in this order: they are the hottest statements of either store and take no
 * array per row (sqlite/sqlite-store.ts, postgres/pg-commit.ts).
 */
export const CHANGE_FIELDS = fieldsOf<ChangeRecord>({
  id: true,
  kind: true,
  event_id: true,
  sport_id: true,
  at: true,
  committed_ms: true,
  price_id: true,
  affiliate_id: true,
  market_id: true,
  payload: true,
  detail: true,
});

/**
 * A change row's select list as ChangeRecord has it; `alias` names the changes table when the query
 * joins it, and `payload` is the expression read as the payload (the stored column unless a query
 * rewrites it).
 */
export function changeColumns(d: SqlDialect, alias = '', payload?: string): string {
  const c = alias ? `${alias}.` : '';
  const expression = (f: keyof ChangeRecord) =>
    f === 'event_id' ? d.eventId(c) : f === 'payload' && payload !== undefined ? payload : `${c}${f}`;
  return CHANGE_FIELDS.map((f) => `${expression(f)} AS ${f}`).join(', ');
}

/** What compaction reads of a row (retention.ts's `compactionKey` and `dropsRow`); a price's payload is not needed. */
function compactionColumns(d: SqlDialect, payload = 'payload'): string {
  return `id, kind, ${d.eventId('')} AS event_id, price_id, market_id, affiliate_id, at, ${payload} AS payload`;
}

/**
 * The WHERE clause of a change read (`readChanges`, `readPayloadBytes`) in `?` parameters, and its
 * arguments: the cursor (afterId) first and the LIMIT last, which the statement puts at its end.
 */
export function changeFilter(d: SqlDialect, q: ChangeQuery): { where: string; args: unknown[] } {
  const where = ['id > ?', 'id <= ?'];
  if (q.pricesOnly) where.push('price_id IS NOT NULL');
  const args: unknown[] = [q.afterId, q.toId];
  if (q.sportId !== undefined) {
    where.push('sport_id = ?');
    args.push(q.sportId);
  }
  if (q.eventId !== undefined) {
    where.push(d.ofEvent(''));
    args.push(q.eventId);
  }
  if (q.eventIds !== undefined) where.push(d.ofEvents(q.eventIds, args));
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids !== undefined) where.push(d.among(column, ids, args));
  };
  within('affiliate_id', q.affiliateIds);
  within('market_id', q.marketIds);
  within(d.period(''), q.periodIds);
  args.push(q.limit);
  return { where: where.join(' AND '), args };
}

/**
 * A row at or after an id (the first parameter) whose time's text is at or after the second (a
 * second before the time asked: log-times.ts, `describedEarly`), or that is no ISO text (its
 * described time is then its commit's).
 */
const DESCRIBED_SINCE = "id >= ? AND (at >= ? OR at NOT LIKE '____-__-__T%')";

/** The period a row's detail names, or null: SQLite reads it from the detail, PostgreSQL keeps it in a column. */
export function periodOf(detail: string | null): number | null {
  const m = detail === null ? null : /"period_id":(-?\d+)/.exec(detail);
  return m ? Number(m[1]) : null;
}

/**
 * A statement for each of `kinds`, the kind spelled in its text: a query reads through the partial
 * indexes of stats, plays and futures only when it names their kind as they do.
 */
function perKind<K extends ChangeKind>(
  kinds: readonly K[],
  write: (kind: K, d: SqlDialect) => string,
): Record<K, SqlText> {
  return Object.fromEntries(kinds.map((kind) => [kind, sqlText((d) => write(kind, d))])) as Record<K, SqlText>;
}

/** Kinds of which compaction keeps the newest row an event (retention.ts). */
const ONE_AN_EVENT = ['event', 'score', 'futures_board'] as const satisfies readonly ChangeKind[];

export const CHANGE_SQL = {
  /** The last row's id (NULL for an empty log). */
  head: sqlText('SELECT max(id) AS max FROM changes'),
  headRow: sqlText('SELECT id, committed_ms FROM changes ORDER BY id DESC LIMIT 1'),
  /** The number of rows (a bigint in PostgreSQL, read as a number: postgres/database.ts). */
  rowCount: sqlText('SELECT count(*) AS n FROM changes'),
  /**
   * The first and last ids, each its own aggregate: SQLite reads min() or max() alone from the end
   * of the primary key, but both in one aggregate scan the whole table.
   */
  bounds: sqlText('SELECT (SELECT min(id) FROM changes) AS lo, (SELECT max(id) FROM changes) AS hi'),
  /** The first id at or after the one bound. */
  firstFrom: sqlText('SELECT min(id) AS min FROM changes WHERE id >= ?'),
  committedMsAt: sqlText('SELECT committed_ms FROM changes WHERE id <= ? ORDER BY id DESC LIMIT 1'),
  /** The first row at or after an id, with its times. */
  timedFrom: sqlText('SELECT id, committed_ms, at FROM changes WHERE id >= ? ORDER BY id LIMIT 1'),
  /** The first row of DESCRIBED_SINCE. */
  describedFrom: sqlText(`SELECT id, committed_ms, at FROM changes WHERE ${DESCRIBED_SINCE} ORDER BY id LIMIT 1`),
  /** The events of the rows of DESCRIBED_SINCE up to an id (the third parameter). */
  eventsDescribedSince: sqlText((d) => d.eventsWhere(`${DESCRIBED_SINCE} AND id <= ?`)),
  /** Rows in (afterId, toId], at most a limit. */
  page: sqlText((d) => `SELECT ${changeColumns(d)} FROM changes WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`),
  /** Every row of an event. */
  ofEvent: sqlText((d) => `SELECT ${changeColumns(d)} FROM changes WHERE ${d.ofEvent('')} ORDER BY id`),
  lastOfEvent: sqlText((d) => `SELECT max(id) AS max FROM changes WHERE ${d.ofEvent('')}`),
  /** An event's stat rows up to an id. */
  statsUpTo: sqlText(
    (d) => `SELECT ${changeColumns(d)} FROM changes WHERE kind = 'stat' AND ${d.ofEvent('')} AND id <= ? ORDER BY id`,
  ),
  /** Every catalog row, through the event index (they share one event id). */
  catalog: sqlText(
    (d) => `SELECT ${changeColumns(d)} FROM changes WHERE ${d.ofEvent('')} AND kind = 'catalog' ORDER BY id`,
  ),
  /** Every season row, through the event index (they share one event id). */
  seasonRecords: sqlText(
    (d) => `SELECT ${changeColumns(d)} FROM changes WHERE ${d.ofEvent('')} AND kind = 'season' ORDER BY id`,
  ),
  playCount: sqlText((d) => `SELECT count(*) AS n FROM changes WHERE kind = 'play' AND ${d.ofEvent('')}`),
  /** Deletes an event's first rows, at most a limit. */
  dropOfEvent: sqlText(
    (d) => `DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE ${d.ofEvent('')} ORDER BY id LIMIT ?)`,
  ),
  /** The highest price id at or below an id, backwards along the price index (max() would scan every row). */
  maxPriceUpTo: sqlText(
    'SELECT price_id FROM changes WHERE price_id IS NOT NULL AND id <= ? ORDER BY price_id DESC LIMIT 1',
  ),
  /** Compaction: the rows of ids in [from, end). */
  chunk: sqlText((d) => `SELECT ${compactionColumns(d)} FROM changes WHERE id >= ? AND id < ? ORDER BY id`),
  /** Compaction: a price's rows below an id. */
  olderOfPrice: sqlText(
    (d) => `SELECT ${compactionColumns(d, "''")} FROM changes WHERE price_id = ? AND id < ? ORDER BY id`,
  ),
  /** Compaction: an event's rows of a kind below an id. */
  olderOfKind: perKind(
    CHANGE_KINDS,
    (kind, d) =>
      `SELECT ${compactionColumns(d)} FROM changes WHERE kind = '${kind}' AND ${d.ofEvent('')} AND id < ? ORDER BY id`,
  ),
  /** Compaction: whether a price has a row in (id, bound). */
  priceSuperseded: sqlText('SELECT 1 FROM changes WHERE price_id = ? AND id > ? AND id < ? LIMIT 1'),
  /** Compaction: whether an event has a row of the kind in (id, bound), for the kinds kept once an event. */
  kindSuperseded: perKind(
    ONE_AN_EVENT,
    (kind, d) => `SELECT 1 FROM changes WHERE kind = '${kind}' AND ${d.ofEvent('')} AND id > ? AND id < ? LIMIT 1`,
  ),
  /** Compaction: whether a team's or player's stat (StatValue's team, stat and player) has a row in (id, bound). */
  statSuperseded: sqlText(
    (d) =>
      `SELECT 1 FROM changes WHERE kind = 'stat' AND ${d.ofEvent('')} AND id > ? AND id < ? ` +
      `AND ${d.payloadField('team_id')} = ? AND ${d.payloadField('stat_id')} = ? ` +
      `AND ${d.sameAs(d.payloadField('player_id'))} LIMIT 1`,
  ),
  /** Compaction: whether a futures price (its market, book and participant) has a row in (id, bound). */
  futuresSuperseded: sqlText(
    (d) =>
      `SELECT 1 FROM changes WHERE kind = 'futures_price' AND ${d.ofEvent('')} AND id > ? AND id < ? ` +
      `AND ${d.sameAs('market_id')} AND ${d.sameAs('affiliate_id')} AND ${d.payloadField('participant_id')} = ? LIMIT 1`,
  ),
  /** Compaction: whether a team's season of a type (SeasonStats' team, year and season type) has a row in (id, bound). */
  seasonSuperseded: sqlText(
    (d) =>
      `SELECT 1 FROM changes WHERE kind = 'season' AND ${d.ofEvent('')} AND id > ? AND id < ? ` +
      `AND ${d.payloadField('team_id')} = ? AND ${d.payloadField('year')} = ? AND ${d.payloadField('season_type')} = ? LIMIT 1`,
  ),
  /** Compaction: whether a price has a row from an id on describing a time at or before the one bound. */
  laterBeforeStart: sqlText('SELECT 1 FROM changes WHERE price_id = ? AND id >= ? AND at <= ? LIMIT 1'),
};

/**
 * Compaction's question whether a newer row of `r`'s key (retention.ts, `compactionKey`) lies below
 * `bound`, as the statement that finds one; none for a kind whose rows are never superseded.
 */
export function supersededQuestion(
  d: SqlDialect,
  r: ChangeRecord,
  bound: number,
): { sql: SqlText; args: unknown[] } | undefined {
  switch (r.kind) {
    case 'price':
      return { sql: CHANGE_SQL.priceSuperseded, args: [r.price_id, r.id, bound] };
    case 'stat': {
      const v = JSON.parse(r.payload) as StatValue;
      const [team, stat, player] = [v.team_id, v.stat_id, v.player_id].map((x) => d.payloadScalar(x));
      return { sql: CHANGE_SQL.statSuperseded, args: [r.event_id, r.id, bound, team, stat, player] };
    }
    case 'futures_price': {
      const participant = (JSON.parse(r.payload) as FuturesPriceFact).participant_id;
      return {
        sql: CHANGE_SQL.futuresSuperseded,
        args: [r.event_id, r.id, bound, r.market_id, r.affiliate_id, d.payloadScalar(participant)],
      };
    }
    case 'season': {
      const { team_id, year, season_type } = JSON.parse(r.payload) as SeasonStats;
      const [team, y, type] = [team_id, year, season_type].map((x) => d.payloadScalar(x));
      return { sql: CHANGE_SQL.seasonSuperseded, args: [r.event_id, r.id, bound, team, y, type] };
    }
    case 'event':
    case 'score':
    case 'futures_board':
      return { sql: CHANGE_SQL.kindSuperseded[r.kind], args: [r.event_id, r.id, bound] };
    default:
      return undefined;
  }
}
