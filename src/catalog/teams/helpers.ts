import type { TeamRecord } from './types.ts';

/** Positional constructor for a TeamRecord, to keep the league tables compact. */
export function team(
  team_id: number,
  name: string,
  mascot: string,
  abbreviation: string,
  conference: string,
  division: string,
  venue_name: string,
  venue_location: string,
): TeamRecord {
  return { team_id, name, mascot, abbreviation, conference, division, venue_name, venue_location };
}

/** The records of `pool` with the given ids, in the order given; throws on an unknown id. */
export function pickTeams(pool: readonly TeamRecord[], ids: readonly number[]): TeamRecord[] {
  const byId = new Map(pool.map((record) => [record.team_id, record]));
  return ids.map((id) => {
    const found = byId.get(id);
    if (!found) throw new Error(`unknown team id ${id}`);
    return found;
  });
}

/**
 * Fictional surnames for generated athletes. Every entry starts with a different three letters,
 * so the derived abbreviations are unique within a league.
 */
export const ATHLETE_SURNAMES: readonly string[] = [
  'Ashcombe',
  'Bellamont',
  'Calloway',
  'Dunmore',
  'Ellery',
  'Farrow',
  'Galloway',
  'Hartwell',
  'Ivers',
  'Jessup',
  'Kettering',
  'Lindqvist',
  'Marlowe',
  'Norcross',
  'Oakhurst',
  'Pemberton',
  'Quennell',
  'Rainsford',
  'Stanhope',
  'Thorne',
  'Underhill',
  'Valcourt',
  'Whitcombe',
  'Yardley',
  'Zellner',
  'Abrantes',
  'Brandvold',
  'Castellan',
  'Devereaux',
  'Estrada',
  'Falkner',
  'Grunwald',
  'Hollister',
  'Ingram',
  'Jovanic',
  'Kowalczyk',
  'Larchmont',
  'Montague',
  'Nakamura',
  'Okonkwo',
  'Petrakis',
  'Quintero',
  'Rosenthal',
  'Sorensen',
  'Tanaka',
  'Ulrich',
  'Varga',
  'Wexford',
  'Xanthos',
  'Yilmaz',
  'Zamora',
  'Achterberg',
  'Bishop',
  'Cordero',
  'Drummond',
  'Eastwood',
  'Fairbanks',
  'Hendricks',
  'Iwasaki',
  'Kilbride',
  'Lombardi',
  'Mercer',
  'Nyberg',
  'Ostrander',
  'Albrecht',
  'Benedetti',
  'Chatterjee',
  'Delgado',
  'Eriksen',
  'Ferreira',
  'Gonzaga',
  'Huber',
  'Ishikawa',
  'Kuznetsov',
  'Laurent',
  'Moretti',
  'Novotny',
  'Paredes',
  'Rinaldi',
  'Schneider',
];

export interface AthleteOptions {
  /** team_id of the first athlete; the rest follow consecutively. */
  firstId: number;
  count: number;
  firstNames: readonly string[];
  /** Rotates the shared surname list so each league gets different full names. */
  surnameOffset: number;
  /** Weight class or similar; '' when not meaningful. */
  division?: (index: number) => string;
}

/**
 * Fictional athletes built deterministically from fixed name arrays by index arithmetic:
 * name "First Last", abbreviation the first three letters of the surname, no venue.
 */
export function generateAthletes(options: AthleteOptions): TeamRecord[] {
  const { firstId, count, firstNames, surnameOffset, division } = options;
  if (count > ATHLETE_SURNAMES.length) throw new Error('not enough surnames for unique abbreviations');
  return Array.from({ length: count }, (_, index) => {
    // The index is taken modulo the length; the list is non-empty whenever count > 0.
    const surname = ATHLETE_SURNAMES[(index + surnameOffset) % ATHLETE_SURNAMES.length]!;
    const firstName = firstNames[(index * 5 + surnameOffset) % firstNames.length];
    return team(
      firstId + index,
      `${firstName} ${surname}`,
      '',
      surname.slice(0, 3).toUpperCase(),
      '',
      division ? division(index) : '',
      '',
      '',
    );
  });
}
