import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const club = (
  id: number,
  name: string,
  abbreviation: string,
  conference: string,
  venue: string,
  location: string,
): TeamRecord => team(id, name, '', abbreviation, conference, '', venue, location);

const E = 'Eastern';
const W = 'Western';

/** The 30 clubs of the 2025 season. */
export const mls: LeagueCatalog = {
  key: 'mls',
  league_name: 'MLS',
  sport_ids: [10],
  individual: false,
  teams: [
    club(8001, 'Atlanta United', 'ATL', E, 'Mercedes-Benz Stadium', 'Atlanta, GA'),
    club(8002, 'Charlotte FC', 'CLT', E, 'Bank of America Stadium', 'Charlotte, NC'),
    club(8003, 'Chicago Fire', 'CHI', E, 'Soldier Field', 'Chicago, IL'),
    club(8004, 'FC Cincinnati', 'CIN', E, 'TQL Stadium', 'Cincinnati, OH'),
    club(8005, 'Columbus Crew', 'CLB', E, 'ScottsMiracle-Gro Field', 'Columbus, OH'),
    club(8006, 'D.C. United', 'DC', E, 'Audi Field', 'Washington, DC'),
    club(8007, 'Inter Miami CF', 'MIA', E, 'Chase Stadium', 'Fort Lauderdale, FL'),
    club(8008, 'CF Montréal', 'MTL', E, 'Stade Saputo', 'Montreal, QC'),
    club(8009, 'Nashville SC', 'NSH', E, 'GEODIS Park', 'Nashville, TN'),
    club(8010, 'New England Revolution', 'NE', E, 'Gillette Stadium', 'Foxborough, MA'),
    club(8011, 'New York City FC', 'NYC', E, 'Yankee Stadium', 'New York, NY'),
    club(8012, 'New York Red Bulls', 'RBNY', E, 'Sports Illustrated Stadium', 'Harrison, NJ'),
    club(8013, 'Orlando City', 'ORL', E, 'Inter&Co Stadium', 'Orlando, FL'),
    club(8014, 'Philadelphia Union', 'PHI', E, 'Subaru Park', 'Chester, PA'),
    club(8015, 'Toronto FC', 'TOR', E, 'BMO Field', 'Toronto, ON'),
    club(8016, 'Austin FC', 'ATX', W, 'Q2 Stadium', 'Austin, TX'),
    club(8017, 'Colorado Rapids', 'COL', W, "Dick's Sporting Goods Park", 'Commerce City, CO'),
    club(8018, 'FC Dallas', 'DAL', W, 'Toyota Stadium', 'Frisco, TX'),
    club(8019, 'Houston Dynamo', 'HOU', W, 'Shell Energy Stadium', 'Houston, TX'),
    club(8020, 'LA Galaxy', 'LA', W, 'Dignity Health Sports Park', 'Carson, CA'),
    club(8021, 'Los Angeles FC', 'LAFC', W, 'BMO Stadium', 'Los Angeles, CA'),
    club(8022, 'Minnesota United', 'MIN', W, 'Allianz Field', 'Saint Paul, MN'),
    club(8023, 'Portland Timbers', 'POR', W, 'Providence Park', 'Portland, OR'),
    club(8024, 'Real Salt Lake', 'RSL', W, 'America First Field', 'Sandy, UT'),
    club(8025, 'San Diego FC', 'SD', W, 'Snapdragon Stadium', 'San Diego, CA'),
    club(8026, 'San Jose Earthquakes', 'SJ', W, 'PayPal Park', 'San Jose, CA'),
    club(8027, 'Seattle Sounders FC', 'SEA', W, 'Lumen Field', 'Seattle, WA'),
    club(8028, 'Sporting Kansas City', 'SKC', W, "Children's Mercy Park", 'Kansas City, KS'),
    club(8029, 'St. Louis City SC', 'STL', W, 'Energizer Park', 'St. Louis, MO'),
    club(8030, 'Vancouver Whitecaps', 'VAN', W, 'BC Place', 'Vancouver, BC'),
  ],
};
