import { generateAthletes } from './helpers.ts';
import type { LeagueCatalog } from './types.ts';

const FIRST_NAMES = [
  'Andre',
  'Bruno',
  'Cyrus',
  'Dante',
  'Elias',
  'Fabian',
  'Goran',
  'Hector',
  'Ivan',
  'Jaxon',
  'Kofi',
  'Lucas',
  'Marek',
  'Nico',
  'Omar',
  'Rocco',
];

const WEIGHT_CLASSES = [
  'Flyweight',
  'Bantamweight',
  'Featherweight',
  'Lightweight',
  'Welterweight',
  'Middleweight',
  'Light Heavyweight',
  'Heavyweight',
];

const PER_CLASS = 8;

/** 64 fictional fighters, eight per weight class, generated deterministically. */
export const mma: LeagueCatalog = {
  key: 'mma',
  league_name: 'MMA',
  sport_ids: [7],
  individual: true,
  teams: generateAthletes({
    firstId: 13001,
    count: WEIGHT_CLASSES.length * PER_CLASS,
    firstNames: FIRST_NAMES,
    surnameOffset: 42,
    // index < count, so the class index stays below WEIGHT_CLASSES.length.
    division: (index) => WEIGHT_CLASSES[Math.floor(index / PER_CLASS)]!,
  }),
};
