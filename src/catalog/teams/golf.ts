import { generateAthletes } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const FIRST_NAMES = [
  'Angus',
  'Beau',
  'Colin',
  'Dustin',
  'Eamon',
  'Fergus',
  'Grady',
  'Harris',
  'Ian',
  'Jordan',
  'Kieran',
  'Luke',
  'Miles',
  'Niall',
  'Preston',
  'Rory',
];

/** 48 fictional tour golfers, generated deterministically; they play only in futures boards. */
export const golf: LeagueCatalog = {
  key: 'golf',
  league_name: 'Golf Tour',
  sport_ids: [40],
  individual: true,
  teams: generateAthletes({ firstId: 14001, count: 48, firstNames: FIRST_NAMES, surnameOffset: 7 }),
};
