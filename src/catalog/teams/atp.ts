import { generateAthletes } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const FIRST_NAMES = [
  'Adrian',
  'Bastian',
  'Caspar',
  'Dorian',
  'Emil',
  'Felix',
  'Gideon',
  'Henrik',
  'Ilya',
  'Julian',
  'Kasimir',
  'Leander',
  'Matthias',
  'Nikolai',
  'Oskar',
  'Rafferty',
];

/** 80 fictional male tennis players, generated deterministically. */
export const atp: LeagueCatalog = {
  key: 'atp',
  league_name: 'ATP Tour',
  sport_ids: [38],
  individual: true,
  teams: generateAthletes({ firstId: 11001, count: 80, firstNames: FIRST_NAMES, surnameOffset: 0 }),
};
