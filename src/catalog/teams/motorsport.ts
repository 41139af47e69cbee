import { generateAthletes } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const FIRST_NAMES = ['Alessio', 'Bruno', 'Carlos', 'Dario', 'Esteban', 'Fabio', 'Giorgio', 'Hugo', 'Jonas', 'Kimi'];

/** 20 fictional racing drivers, generated deterministically; they appear only in futures boards. */
export const motorsport: LeagueCatalog = {
  key: 'motorsport',
  league_name: 'Motor Racing Series',
  sport_ids: [41],
  individual: true,
  teams: generateAthletes({ firstId: 15001, count: 20, firstNames: FIRST_NAMES, surnameOffset: 33 }),
};
