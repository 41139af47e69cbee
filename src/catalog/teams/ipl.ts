import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const franchise = (
  id: number,
  name: string,
  mascot: string,
  abbreviation: string,
  venue: string,
  location: string,
): TeamRecord => team(id, name, mascot, abbreviation, 'Indian Premier League', '', venue, location);

/** The 10 IPL franchises. */
export const ipl: LeagueCatalog = {
  key: 'ipl',
  league_name: 'Indian Premier League',
  sport_ids: [20],
  individual: false,
  teams: [
    franchise(9901, 'Chennai', 'Super Kings', 'CSK', 'M. A. Chidambaram Stadium', 'Chennai, Tamil Nadu'),
    franchise(9902, 'Delhi', 'Capitals', 'DC', 'Arun Jaitley Stadium', 'Delhi, Delhi'),
    franchise(9903, 'Gujarat', 'Titans', 'GT', 'Narendra Modi Stadium', 'Ahmedabad, Gujarat'),
    franchise(9904, 'Kolkata', 'Knight Riders', 'KKR', 'Eden Gardens', 'Kolkata, West Bengal'),
    franchise(9905, 'Lucknow', 'Super Giants', 'LSG', 'Ekana Cricket Stadium', 'Lucknow, Uttar Pradesh'),
    franchise(9906, 'Mumbai', 'Indians', 'MI', 'Wankhede Stadium', 'Mumbai, Maharashtra'),
    franchise(
      9907,
      'Punjab',
      'Kings',
      'PBKS',
      'Maharaja Yadavindra Singh International Cricket Stadium',
      'Mullanpur, Punjab',
    ),
    franchise(9908, 'Rajasthan', 'Royals', 'RR', 'Sawai Mansingh Stadium', 'Jaipur, Rajasthan'),
    franchise(9909, 'Bengaluru', 'Royal Challengers', 'RCB', 'M. Chinnaswamy Stadium', 'Bengaluru, Karnataka'),
    franchise(
      9910,
      'Hyderabad',
      'Sunrisers',
      'SRH',
      'Rajiv Gandhi International Cricket Stadium',
      'Hyderabad, Telangana',
    ),
  ],
};
