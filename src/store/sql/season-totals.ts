import type { SeasonTotalsRecord } from '../store.ts';
import { sqlText } from './dialect.ts';

/** `season_totals`: the summed box scores of the archived games of each season key. */
export interface SeasonTotalsRow {
  season_key: string;
  body: string;
}

export function seasonTotalsOf(row: SeasonTotalsRow): SeasonTotalsRecord {
  return { key: row.season_key, body: row.body };
}

export function seasonTotalsValues(t: SeasonTotalsRecord): [seasonKey: string, body: string] {
  return [t.key, t.body];
}

export const SEASON_TOTALS_SQL = {
  /** Replaces the kept totals of a key. */
  put: sqlText(
    'INSERT INTO season_totals (season_key, body) VALUES (?, ?) ON CONFLICT (season_key) DO UPDATE SET body = excluded.body',
  ),
  all: sqlText('SELECT season_key, body FROM season_totals ORDER BY season_key'),
};
