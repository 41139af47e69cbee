import { team as t } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const AL = 'American League';
const NL = 'National League';

export const mlb: LeagueCatalog = {
  key: 'mlb',
  league_name: 'MLB',
  sport_ids: [3, 30, 31],
  individual: false,
  teams: [
    t(3001, 'Arizona', 'Diamondbacks', 'ARI', NL, 'NL West', 'Chase Field', 'Phoenix, AZ'),
    // The club dropped its city from its name after leaving Oakland (2025).
    t(3002, 'Athletics', '', 'ATH', AL, 'AL West', 'Sutter Health Park', 'West Sacramento, CA'),
    t(3003, 'Atlanta', 'Braves', 'ATL', NL, 'NL East', 'Truist Park', 'Atlanta, GA'),
    t(3004, 'Baltimore', 'Orioles', 'BAL', AL, 'AL East', 'Oriole Park at Camden Yards', 'Baltimore, MD'),
    t(3005, 'Boston', 'Red Sox', 'BOS', AL, 'AL East', 'Fenway Park', 'Boston, MA'),
    t(3006, 'Chicago', 'Cubs', 'CHC', NL, 'NL Central', 'Wrigley Field', 'Chicago, IL'),
    t(3007, 'Chicago', 'White Sox', 'CWS', AL, 'AL Central', 'Rate Field', 'Chicago, IL'),
    t(3008, 'Cincinnati', 'Reds', 'CIN', NL, 'NL Central', 'Great American Ball Park', 'Cincinnati, OH'),
    t(3009, 'Cleveland', 'Guardians', 'CLE', AL, 'AL Central', 'Progressive Field', 'Cleveland, OH'),
    t(3010, 'Colorado', 'Rockies', 'COL', NL, 'NL West', 'Coors Field', 'Denver, CO'),
    t(3011, 'Detroit', 'Tigers', 'DET', AL, 'AL Central', 'Comerica Park', 'Detroit, MI'),
    t(3012, 'Houston', 'Astros', 'HOU', AL, 'AL West', 'Daikin Park', 'Houston, TX'),
    t(3013, 'Kansas City', 'Royals', 'KC', AL, 'AL Central', 'Kauffman Stadium', 'Kansas City, MO'),
    t(3014, 'Los Angeles', 'Angels', 'LAA', AL, 'AL West', 'Angel Stadium', 'Anaheim, CA'),
    t(3015, 'Los Angeles', 'Dodgers', 'LAD', NL, 'NL West', 'Dodger Stadium', 'Los Angeles, CA'),
    t(3016, 'Miami', 'Marlins', 'MIA', NL, 'NL East', 'loanDepot park', 'Miami, FL'),
    t(3017, 'Milwaukee', 'Brewers', 'MIL', NL, 'NL Central', 'American Family Field', 'Milwaukee, WI'),
    t(3018, 'Minnesota', 'Twins', 'MIN', AL, 'AL Central', 'Target Field', 'Minneapolis, MN'),
    t(3019, 'New York', 'Mets', 'NYM', NL, 'NL East', 'Citi Field', 'New York, NY'),
    t(3020, 'New York', 'Yankees', 'NYY', AL, 'AL East', 'Yankee Stadium', 'New York, NY'),
    t(3021, 'Philadelphia', 'Phillies', 'PHI', NL, 'NL East', 'Citizens Bank Park', 'Philadelphia, PA'),
    t(3022, 'Pittsburgh', 'Pirates', 'PIT', NL, 'NL Central', 'PNC Park', 'Pittsburgh, PA'),
    t(3023, 'San Diego', 'Padres', 'SD', NL, 'NL West', 'Petco Park', 'San Diego, CA'),
    t(3024, 'San Francisco', 'Giants', 'SF', NL, 'NL West', 'Oracle Park', 'San Francisco, CA'),
    t(3025, 'Seattle', 'Mariners', 'SEA', AL, 'AL West', 'T-Mobile Park', 'Seattle, WA'),
    t(3026, 'St. Louis', 'Cardinals', 'STL', NL, 'NL Central', 'Busch Stadium', 'St. Louis, MO'),
    t(3027, 'Tampa Bay', 'Rays', 'TB', AL, 'AL East', 'Tropicana Field', 'St. Petersburg, FL'),
    t(3028, 'Texas', 'Rangers', 'TEX', AL, 'AL West', 'Globe Life Field', 'Arlington, TX'),
    t(3029, 'Toronto', 'Blue Jays', 'TOR', AL, 'AL East', 'Rogers Centre', 'Toronto, ON'),
    t(3030, 'Washington', 'Nationals', 'WSH', NL, 'NL East', 'Nationals Park', 'Washington, DC'),
  ],
};
