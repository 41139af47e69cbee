import { team as t } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const E = 'Eastern';
const W = 'Western';

export const nba: LeagueCatalog = {
  key: 'nba',
  league_name: 'NBA',
  sport_ids: [4, 23, 24, 32],
  individual: false,
  teams: [
    t(2001, 'Atlanta', 'Hawks', 'ATL', E, 'Southeast', 'State Farm Arena', 'Atlanta, GA'),
    t(2002, 'Boston', 'Celtics', 'BOS', E, 'Atlantic', 'TD Garden', 'Boston, MA'),
    t(2003, 'Brooklyn', 'Nets', 'BKN', E, 'Atlantic', 'Barclays Center', 'Brooklyn, NY'),
    t(2004, 'Charlotte', 'Hornets', 'CHA', E, 'Southeast', 'Spectrum Center', 'Charlotte, NC'),
    t(2005, 'Chicago', 'Bulls', 'CHI', E, 'Central', 'United Center', 'Chicago, IL'),
    t(2006, 'Cleveland', 'Cavaliers', 'CLE', E, 'Central', 'Rocket Arena', 'Cleveland, OH'),
    t(2007, 'Dallas', 'Mavericks', 'DAL', W, 'Southwest', 'American Airlines Center', 'Dallas, TX'),
    t(2008, 'Denver', 'Nuggets', 'DEN', W, 'Northwest', 'Ball Arena', 'Denver, CO'),
    t(2009, 'Detroit', 'Pistons', 'DET', E, 'Central', 'Little Caesars Arena', 'Detroit, MI'),
    t(2010, 'Golden State', 'Warriors', 'GSW', W, 'Pacific', 'Chase Center', 'San Francisco, CA'),
    t(2011, 'Houston', 'Rockets', 'HOU', W, 'Southwest', 'Toyota Center', 'Houston, TX'),
    t(2012, 'Indiana', 'Pacers', 'IND', E, 'Central', 'Gainbridge Fieldhouse', 'Indianapolis, IN'),
    t(2013, 'LA', 'Clippers', 'LAC', W, 'Pacific', 'Intuit Dome', 'Inglewood, CA'),
    t(2014, 'Los Angeles', 'Lakers', 'LAL', W, 'Pacific', 'Crypto.com Arena', 'Los Angeles, CA'),
    t(2015, 'Memphis', 'Grizzlies', 'MEM', W, 'Southwest', 'FedExForum', 'Memphis, TN'),
    t(2016, 'Miami', 'Heat', 'MIA', E, 'Southeast', 'Kaseya Center', 'Miami, FL'),
    t(2017, 'Milwaukee', 'Bucks', 'MIL', E, 'Central', 'Fiserv Forum', 'Milwaukee, WI'),
    t(2018, 'Minnesota', 'Timberwolves', 'MIN', W, 'Northwest', 'Target Center', 'Minneapolis, MN'),
    t(2019, 'New Orleans', 'Pelicans', 'NOP', W, 'Southwest', 'Smoothie King Center', 'New Orleans, LA'),
    t(2020, 'New York', 'Knicks', 'NYK', E, 'Atlantic', 'Madison Square Garden', 'New York, NY'),
    t(2021, 'Oklahoma City', 'Thunder', 'OKC', W, 'Northwest', 'Paycom Center', 'Oklahoma City, OK'),
    t(2022, 'Orlando', 'Magic', 'ORL', E, 'Southeast', 'Kia Center', 'Orlando, FL'),
    t(2023, 'Philadelphia', '76ers', 'PHI', E, 'Atlantic', 'Xfinity Mobile Arena', 'Philadelphia, PA'),
    t(2024, 'Phoenix', 'Suns', 'PHX', W, 'Pacific', 'Mortgage Matchup Center', 'Phoenix, AZ'),
    t(2025, 'Portland', 'Trail Blazers', 'POR', W, 'Northwest', 'Moda Center', 'Portland, OR'),
    t(2026, 'Sacramento', 'Kings', 'SAC', W, 'Pacific', 'Golden 1 Center', 'Sacramento, CA'),
    t(2027, 'San Antonio', 'Spurs', 'SAS', W, 'Southwest', 'Frost Bank Center', 'San Antonio, TX'),
    t(2028, 'Toronto', 'Raptors', 'TOR', E, 'Atlantic', 'Scotiabank Arena', 'Toronto, ON'),
    t(2029, 'Utah', 'Jazz', 'UTA', W, 'Northwest', 'Delta Center', 'Salt Lake City, UT'),
    t(2030, 'Washington', 'Wizards', 'WAS', E, 'Southeast', 'Capital One Arena', 'Washington, DC'),
  ],
};
