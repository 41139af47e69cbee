/** Reference facts about the competitors of one league, as the simulator and team routes use them. */

export interface TeamRecord {
  /** Normalized team id: unique across every league, stable across seasons and sport ids. */
  team_id: number;
  /** City, school or country: "Boston", "Duke", "France". For an athlete, the full name. */
  name: string;
  /** "Celtics", "Blue Devils"; '' where a club has no mascot in common use. */
  mascot: string;
  abbreviation: string;
  conference: string;
  division: string;
  /** Home venue name and "City, Region" location; '' where not meaningful. */
  venue_name: string;
  venue_location: string;
}

export interface LeagueCatalog {
  /** Short key, e.g. 'nba', 'epl', 'atp'. */
  key: string;
  league_name: string;
  /** Sport ids that play with this set of teams, e.g. NBA: [4, 23, 24, 32]. */
  sport_ids: number[];
  /** True when competitors are individual athletes (tennis, MMA): fictional, generated. */
  individual: boolean;
  teams: TeamRecord[];
}
