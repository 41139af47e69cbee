import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { MoneylineSchema, SpreadSchema, TeamTotalSchema, TotalSchema } from '../projection/v1-schemas.ts';

/**
 * The answers of /api/v1/lines/{lineID}/{family}, apart from their routes so that the typed client
 * (packages/client) takes its types from them. Each is `{<list>: [...]}` for one period, or
 * `{<family>_periods: {<period name>: [...]}}` with include=all_periods.
 */

/** A family's object in the line routes: it names its period too (clients merge periods' histories). */
const periodEntry = <T extends TProperties>(schema: TObject<T>) =>
  Type.Object({ ...schema.properties, period_id: Type.Integer(), period_description: Type.String() });

const byPeriod = <T extends TObject>(entry: T) => Type.Optional(Type.Record(Type.String(), Type.Array(entry)));

const MoneylineEntry = periodEntry(MoneylineSchema);
const SpreadEntry = periodEntry(SpreadSchema);
const TotalEntry = periodEntry(TotalSchema);
const TeamTotalEntry = periodEntry(TeamTotalSchema);

export const MoneylineFamilySchema = Type.Object({
  moneylines: Type.Optional(Type.Array(MoneylineEntry)),
  moneyline_periods: byPeriod(MoneylineEntry),
});
export const SpreadFamilySchema = Type.Object({
  spreads: Type.Optional(Type.Array(SpreadEntry)),
  spread_periods: byPeriod(SpreadEntry),
});
export const TotalFamilySchema = Type.Object({
  totals: Type.Optional(Type.Array(TotalEntry)),
  total_periods: byPeriod(TotalEntry),
});
export const TeamTotalFamilySchema = Type.Object({
  team_totals: Type.Optional(Type.Array(TeamTotalEntry)),
  team_total_periods: byPeriod(TeamTotalEntry),
});
