import assert from 'node:assert/strict';
import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * What the official V1 client requires of the answers it parses (issue 43): every field it reads,
 * with its type, and nothing more. Written apart from the server's schemas, so a field the server
 * drops or retypes fails here. Extra fields are allowed: clients ignore them.
 */

const Int = Type.Integer();
const Num = Type.Number();
const Str = Type.String();
const Bool = Type.Boolean();
/** A timestamp the client parses as a date. */
const DateStr = Type.String({ minLength: 10 });

const placed = { line_id: Int, event_id: Str, affiliate_id: Int };
const item = { event_id: Str, affiliate_id: Int };

export const ClientMoneyline = Type.Object({
  ...placed,
  moneyline_away: Num,
  moneyline_home: Num,
  moneyline_draw: Num,
  date_updated: DateStr,
});

const spreadNumbers = {
  point_spread_away: Num,
  point_spread_away_money: Num,
  point_spread_home: Num,
  point_spread_home_money: Num,
  date_updated: DateStr,
};
export const ClientSpread = Type.Object({
  ...placed,
  ...spreadNumbers,
  extended_spreads: Type.Array(Type.Object({ ...item, ...spreadNumbers })),
});

const totalNumbers = {
  total_over: Num,
  total_over_money: Num,
  total_under: Num,
  total_under_money: Num,
  date_updated: DateStr,
};
export const ClientTotal = Type.Object({
  ...placed,
  ...totalNumbers,
  extended_totals: Type.Array(Type.Object({ ...item, ...totalNumbers })),
});

export const ClientLineSet = Type.Object({
  line_id: Int,
  affiliate_id: Int,
  period_id: Int,
  period_description: Str,
  affiliate: Type.Object({ affiliate_id: Int, affiliate_name: Str }),
  moneyline: ClientMoneyline,
  spread: ClientSpread,
  total: ClientTotal,
});

export const ClientScore = Type.Object({
  event_id: Str,
  event_status: Str,
  score_away: Int,
  score_home: Int,
  updated_at: DateStr,
});

const NormalizedTeam = Type.Object({ team_id: Int, name: Str, is_away: Bool, is_home: Bool });

export const ClientEvent = Type.Object({
  event_id: Str,
  sport_id: Int,
  event_date: DateStr,
  score: Type.Optional(ClientScore),
  teams_normalized: Type.Array(NormalizedTeam),
  schedule: Type.Object({ event_name: Str, attendance: Int }),
  lines: Type.Record(Type.String(), ClientLineSet),
  line_periods: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), ClientLineSet))),
});

export const ClientEvents = Type.Object({
  meta: Type.Object({ delta_last_id: Str }),
  events: Type.Array(ClientEvent),
});

export const ClientDelta = Type.Object({
  meta: Type.Object({ delta_last_id: Str, count: Int, has_more: Bool }),
  events: Type.Array(ClientEvent),
});

export const ClientLines = Type.Object({ event_id: Str, lines: Type.Array(ClientLineSet) });

export const ClientScheduleRow = Type.Object({
  id: Int,
  event_id: Str,
  event_uuid: Str,
  sport_id: Int,
  date_event: DateStr,
  event_date: DateStr,
  neutral_site: Bool,
  conference_competition: Bool,
  away_team_id: Int,
  home_team_id: Int,
  away_score: Int,
  home_score: Int,
  league_name: Str,
  event_name: Str,
  event_location: Str,
  attendance: Int,
  updated_at: DateStr,
  event_status: Str,
  event_status_detail: Str,
  teams_normalized: Type.Array(NormalizedTeam),
});

export const ClientSchedule = Type.Object({ schedules: Type.Array(ClientScheduleRow) });

/** Dates the client parses: an ISO 8601 string that Date.parse reads. */
function datesParse(value: unknown, path = '$'): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const bad = datesParse(v, `${path}[${i}]`);
      if (bad) return bad;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (
        (k === 'date_updated' || k === 'updated_at' || k === 'date_event' || k === 'event_date') &&
        !Number.isFinite(Date.parse(String(v)))
      ) {
        return `${path}.${k} = ${JSON.stringify(v)}`;
      }
      const bad = datesParse(v, `${path}.${k}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** Fails with the first field the client would miss or misread. */
export function assertClientReads(schema: TSchema, body: unknown, label: string): void {
  const first = Value.Errors(schema, body).First();
  assert.equal(first, undefined, first && `${label}: ${first.path} ${first.message} (${JSON.stringify(first.value)})`);
  const badDate = datesParse(body);
  assert.equal(badDate, undefined, `${label}: unparsable date ${badDate}`);
}
