import { team as t } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const E = 'Eastern';
const W = 'Western';

/** The 13 teams of the 2025 season. */
export const wnba: LeagueCatalog = {
  key: 'wnba',
  league_name: 'WNBA',
  sport_ids: [8],
  individual: false,
  teams: [
    t(5001, 'Atlanta', 'Dream', 'ATL', E, '', 'Gateway Center Arena', 'College Park, GA'),
    t(5002, 'Chicago', 'Sky', 'CHI', E, '', 'Wintrust Arena', 'Chicago, IL'),
    t(5003, 'Connecticut', 'Sun', 'CON', E, '', 'Mohegan Sun Arena', 'Uncasville, CT'),
    t(5004, 'Dallas', 'Wings', 'DAL', W, '', 'College Park Center', 'Arlington, TX'),
    t(5005, 'Golden State', 'Valkyries', 'GS', W, '', 'Chase Center', 'San Francisco, CA'),
    t(5006, 'Indiana', 'Fever', 'IND', E, '', 'Gainbridge Fieldhouse', 'Indianapolis, IN'),
    t(5007, 'Las Vegas', 'Aces', 'LV', W, '', 'Michelob Ultra Arena', 'Las Vegas, NV'),
    t(5008, 'Los Angeles', 'Sparks', 'LA', W, '', 'Crypto.com Arena', 'Los Angeles, CA'),
    t(5009, 'Minnesota', 'Lynx', 'MIN', W, '', 'Target Center', 'Minneapolis, MN'),
    t(5010, 'New York', 'Liberty', 'NY', E, '', 'Barclays Center', 'Brooklyn, NY'),
    t(5011, 'Phoenix', 'Mercury', 'PHX', W, '', 'Mortgage Matchup Center', 'Phoenix, AZ'),
    t(5012, 'Seattle', 'Storm', 'SEA', W, '', 'Climate Pledge Arena', 'Seattle, WA'),
    t(5013, 'Washington', 'Mystics', 'WAS', E, '', 'CareFirst Arena', 'Washington, DC'),
  ],
};
