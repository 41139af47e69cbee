import { team as t } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const E = 'Eastern';
const W = 'Western';

export const nhl: LeagueCatalog = {
  key: 'nhl',
  league_name: 'NHL',
  sport_ids: [6, 27, 28],
  individual: false,
  teams: [
    t(4001, 'Anaheim', 'Ducks', 'ANA', W, 'Pacific', 'Honda Center', 'Anaheim, CA'),
    t(4002, 'Boston', 'Bruins', 'BOS', E, 'Atlantic', 'TD Garden', 'Boston, MA'),
    t(4003, 'Buffalo', 'Sabres', 'BUF', E, 'Atlantic', 'KeyBank Center', 'Buffalo, NY'),
    t(4004, 'Calgary', 'Flames', 'CGY', W, 'Pacific', 'Scotiabank Saddledome', 'Calgary, AB'),
    t(4005, 'Carolina', 'Hurricanes', 'CAR', E, 'Metropolitan', 'Lenovo Center', 'Raleigh, NC'),
    t(4006, 'Chicago', 'Blackhawks', 'CHI', W, 'Central', 'United Center', 'Chicago, IL'),
    t(4007, 'Colorado', 'Avalanche', 'COL', W, 'Central', 'Ball Arena', 'Denver, CO'),
    t(4008, 'Columbus', 'Blue Jackets', 'CBJ', E, 'Metropolitan', 'Nationwide Arena', 'Columbus, OH'),
    t(4009, 'Dallas', 'Stars', 'DAL', W, 'Central', 'American Airlines Center', 'Dallas, TX'),
    t(4010, 'Detroit', 'Red Wings', 'DET', E, 'Atlantic', 'Little Caesars Arena', 'Detroit, MI'),
    t(4011, 'Edmonton', 'Oilers', 'EDM', W, 'Pacific', 'Rogers Place', 'Edmonton, AB'),
    t(4012, 'Florida', 'Panthers', 'FLA', E, 'Atlantic', 'Amerant Bank Arena', 'Sunrise, FL'),
    t(4013, 'Los Angeles', 'Kings', 'LAK', W, 'Pacific', 'Crypto.com Arena', 'Los Angeles, CA'),
    t(4014, 'Minnesota', 'Wild', 'MIN', W, 'Central', 'Xcel Energy Center', 'Saint Paul, MN'),
    t(4015, 'Montreal', 'Canadiens', 'MTL', E, 'Atlantic', 'Bell Centre', 'Montreal, QC'),
    t(4016, 'Nashville', 'Predators', 'NSH', W, 'Central', 'Bridgestone Arena', 'Nashville, TN'),
    t(4017, 'New Jersey', 'Devils', 'NJD', E, 'Metropolitan', 'Prudential Center', 'Newark, NJ'),
    t(4018, 'New York', 'Islanders', 'NYI', E, 'Metropolitan', 'UBS Arena', 'Elmont, NY'),
    t(4019, 'New York', 'Rangers', 'NYR', E, 'Metropolitan', 'Madison Square Garden', 'New York, NY'),
    t(4020, 'Ottawa', 'Senators', 'OTT', E, 'Atlantic', 'Canadian Tire Centre', 'Ottawa, ON'),
    t(4021, 'Philadelphia', 'Flyers', 'PHI', E, 'Metropolitan', 'Xfinity Mobile Arena', 'Philadelphia, PA'),
    t(4022, 'Pittsburgh', 'Penguins', 'PIT', E, 'Metropolitan', 'PPG Paints Arena', 'Pittsburgh, PA'),
    t(4023, 'San Jose', 'Sharks', 'SJS', W, 'Pacific', 'SAP Center', 'San Jose, CA'),
    t(4024, 'Seattle', 'Kraken', 'SEA', W, 'Pacific', 'Climate Pledge Arena', 'Seattle, WA'),
    t(4025, 'St. Louis', 'Blues', 'STL', W, 'Central', 'Enterprise Center', 'St. Louis, MO'),
    t(4026, 'Tampa Bay', 'Lightning', 'TBL', E, 'Atlantic', 'Benchmark International Arena', 'Tampa, FL'),
    t(4027, 'Toronto', 'Maple Leafs', 'TOR', E, 'Atlantic', 'Scotiabank Arena', 'Toronto, ON'),
    t(4028, 'Utah', 'Mammoth', 'UTA', W, 'Central', 'Delta Center', 'Salt Lake City, UT'),
    t(4029, 'Vancouver', 'Canucks', 'VAN', W, 'Pacific', 'Rogers Arena', 'Vancouver, BC'),
    t(4030, 'Vegas', 'Golden Knights', 'VGK', W, 'Pacific', 'T-Mobile Arena', 'Las Vegas, NV'),
    t(4031, 'Washington', 'Capitals', 'WSH', E, 'Metropolitan', 'Capital One Arena', 'Washington, DC'),
    t(4032, 'Winnipeg', 'Jets', 'WPG', W, 'Central', 'Canada Life Centre', 'Winnipeg, MB'),
  ],
};
