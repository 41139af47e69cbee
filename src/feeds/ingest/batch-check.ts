import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { type TSchema, Type } from '@sinclair/typebox';
import type { RecordFault } from '../../domain/ingest.ts';
import type { EventInfo } from '../../domain/types.ts';
import { boxFaults } from '../../ledger/stat-rows.ts';
import { seasonFaults } from '../../ledger/season-planner.ts';
import type { Update } from '../../ledger/updates.ts';
import { catalogKey, type SportEntry, type StatsEntry } from '../../catalog/records.ts';
import { layeredStats, type StatLookup, StatTable, statIdClashes } from '../../catalog/stat-table.ts';
import { CATALOG_SCHEMAS } from './catalog-schemas.ts';
import { RECORD_SCHEMAS, type RecordKind } from './record-schemas.ts';

/** What the check needs of the current state: which events, futures boards, sports and books exist. */
export interface KnownIds {
  /** An event on the board: its sport and teams, which its box score must keep to. */
  eventOf(eventId: string): EventTeams | undefined;
  hasFuturesBoard(eventId: string): boolean;
  /** A sport's catalog record: its discipline chooses the score rules its events' scores keep to. */
  sport(sportId: number): SportEntry | undefined;
  hasBook(affiliateId: number): boolean;
  /** The sports' stat definitions, which box scores keep to. */
  stats: StatLookup;
  /** The sport ids of a team's home league (the sports its season sums); undefined for no league's team. */
  homeSportIds(teamId: number): readonly number[] | undefined;
}

export type EventTeams = Pick<EventInfo, 'event_id' | 'sport_id' | 'teams'>;

/** Faults told per record at most: enough to fix it, bounded however broken it is. */
const FAULTS_PER_RECORD = 10;

const CHECKS = Object.fromEntries(
  Object.entries(RECORD_SCHEMAS).map(([kind, schema]) => [kind, TypeCompiler.Compile(schema as TSchema)]),
) as Record<RecordKind, TypeCheck<TSchema>>;

const KINDS = Object.keys(RECORD_SCHEMAS).join(', ');

/** A catalog record checked against its own type's schema, so that a fault names the field. */
const CATALOG_CHECKS = Object.fromEntries(
  Object.entries(CATALOG_SCHEMAS).map(([type, schema]) => [
    type,
    TypeCompiler.Compile(
      Type.Object({ kind: Type.Literal('catalog'), record: schema }, { additionalProperties: false }),
    ),
  ]),
) as Record<string, TypeCheck<TSchema>>;
const CATALOG_TYPES = Object.keys(CATALOG_SCHEMAS).join(', ');

/**
 * Checks a batch's records whole: each against its kind's schema, then against what exists (the
 * events and boards it names, earlier in the batch or already on the board; the sports and books
 * of the catalog). Returns the updates, in order, when every record passes, or every fault found.
 * The ledger checks again what only it can (a play's players, a settled board), refusing the batch
 * whole with one message.
 */
export function checkRecords(
  records: readonly unknown[],
  known: KnownIds,
): { updates: Update[] } | { faults: RecordFault[] } {
  const faults: RecordFault[] = [];
  const events = new Map<string, EventTeams>();
  const boards = new Set<string>();
  const sports = new Map<number, SportEntry>();
  const books = new Set<number>();
  /** Sports and books removed earlier in the batch (and not brought again since). */
  const removed = new Set<string>();
  // Removals are rare: a key is built only when there is one to match.
  const sportOf = (id: number) =>
    removed.size > 0 && removed.has(`sport:${id}`) ? undefined : (sports.get(id) ?? known.sport(id));
  const hasSport = (id: number) => sportOf(id) !== undefined;
  const hasBook = (id: number) =>
    !(removed.size > 0 && removed.has(`book:${id}`)) && (books.has(id) || known.hasBook(id));
  /** Stats records earlier in the batch, by sport (undefined: removed). */
  const statTables = new Map<number, StatTable | undefined>();
  // Laid over again at each use: a view made while the map was empty would be the catalog alone.
  const stats = () => layeredStats(known.stats, statTables);
  /** The last event id found to exist: feeds send an event's records together. */
  let eventSeen = '';
  // One function for the whole batch, not a closure per record: it reads the loop's index.
  let index = 0;
  const fault = (field: string, message: string) => faults.push({ index, field, message });
  for (; index < records.length; index++) {
    const record = records[index];
    const kind = (record as { kind?: unknown } | null)?.kind;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      fault('', 'a record is a JSON object');
      continue;
    }
    if (typeof kind !== 'string' || !Object.hasOwn(CHECKS, kind)) {
      fault('/kind', `kind must be one of ${KINDS}`);
      continue;
    }
    let check = CHECKS[kind as RecordKind];
    if (kind === 'catalog') {
      const type = (record as { record?: { type?: unknown } }).record?.type;
      if (typeof type !== 'string' || !Object.hasOwn(CATALOG_CHECKS, type)) {
        fault('/record/type', `type must be one of ${CATALOG_TYPES}`);
        continue;
      }
      check = CATALOG_CHECKS[type]!;
    }
    if (!check.Check(record)) {
      let told = 0;
      for (const e of check.Errors(record)) {
        fault(e.path, e.message);
        if (++told === FAULTS_PER_RECORD) break;
      }
      continue;
    }
    const u = record as Update;
    switch (u.kind) {
      case 'catalog':
        if (u.record.type === 'sport') sports.set(u.record.sport_id, u.record);
        if (u.record.type === 'book') books.add(u.record.affiliate_id);
        if (u.record.type === 'stats') {
          for (const f of statsFaults(u.record, stats())) fault(f.field, f.message);
          statTables.set(u.record.sport_id, new StatTable(u.record));
        }
        if (u.record.type === 'removal') {
          removed.add(u.record.key);
          if (u.record.key.startsWith('stats:')) statTables.set(Number(u.record.key.slice(6)), undefined);
        } else removed.delete(catalogKey(u.record));
        break;
      case 'event':
        if (!hasSport(u.event.sport_id)) fault('/event/sport_id', 'names no sport of the catalog');
        events.set(u.event.event_id, u.event);
        break;
      case 'futures_board':
        if (!hasSport(u.board.sport_id)) fault('/board/sport_id', 'names no sport of the catalog');
        boards.add(u.board.event_id);
        break;
      case 'season_stats': {
        const season = seasonFaults(u, { homeSportIds: (t) => known.homeSportIds(t), stats: stats() });
        for (const f of season.slice(0, FAULTS_PER_RECORD)) fault(f.field, f.message);
        break;
      }
      case 'futures_price':
      case 'futures_settlement':
        if (!boards.has(u.event_id) && !known.hasFuturesBoard(u.event_id)) {
          fault('/event_id', 'names no futures board (send its futures_board record first)');
        }
        if (u.kind === 'futures_price' && !hasBook(u.affiliate_id)) {
          fault('/affiliate_id', 'names no book of the catalog');
        }
        break;
      default:
        // An event found once stays found: the check changes nothing.
        if (u.event_id !== eventSeen) {
          if (events.has(u.event_id) || known.eventOf(u.event_id)) eventSeen = u.event_id;
          else fault('/event_id', 'names no event (send its event record first)');
        }
        if (u.kind === 'box_score') {
          const info = events.get(u.event_id) ?? known.eventOf(u.event_id);
          let told = 0;
          for (const f of info ? boxFaults(info, u, stats()) : []) {
            fault(f.field, f.message);
            if (++told === FAULTS_PER_RECORD) break;
          }
        }
        if (u.kind === 'price') {
          if (!hasBook(u.affiliate_id)) fault('/affiliate_id', 'names no book of the catalog');
          if (!Number.isFinite(u.price)) fault('/price', 'must be a finite number');
        }
    }
  }
  return faults.length > 0 ? { faults } : { updates: records as Update[] };
}

/**
 * A stats record's ids and names must each be once in it (a box value names its stat by either),
 * and its ids must be no other sport's (`statIdClashes`), as `stats` holds them before it.
 */
function statsFaults(record: StatsEntry, stats: StatLookup): { field: string; message: string }[] {
  const faults: { field: string; message: string }[] = [];
  const ids = new Set<number>();
  const names = new Set<string>();
  const clashes = new Map(statIdClashes(record, stats).map((c) => [c.index, c]));
  record.stats.forEach((s, i) => {
    const clash = clashes.get(i);
    if (clash) faults.push({ field: `/record/stats/${i}/id`, message: `stat id ${s.id} is sport ${clash.sportId}'s` });
    if (ids.has(s.id)) faults.push({ field: `/record/stats/${i}/id`, message: `stat id ${s.id} is listed twice` });
    if (names.has(s.name))
      faults.push({ field: `/record/stats/${i}/name`, message: `stat name ${s.name} is listed twice` });
    ids.add(s.id);
    names.add(s.name);
  });
  return faults.slice(0, FAULTS_PER_RECORD);
}
