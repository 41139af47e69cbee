import { generateAthletes } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const FIRST_NAMES = [
  'Adele',
  'Bianca',
  'Camille',
  'Daria',
  'Elodie',
  'Freya',
  'Greta',
  'Helena',
  'Ingrid',
  'Jolene',
  'Katya',
  'Liesel',
  'Marisol',
  'Noemi',
  'Ottilie',
  'Rosalind',
];

/** 80 fictional female tennis players, generated deterministically. */
export const wta: LeagueCatalog = {
  key: 'wta',
  league_name: 'WTA Tour',
  sport_ids: [39],
  individual: true,
  teams: generateAthletes({ firstId: 12001, count: 80, firstNames: FIRST_NAMES, surnameOffset: 21 }),
};
