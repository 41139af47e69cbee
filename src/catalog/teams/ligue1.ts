import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'Ligue 1';
const club = (id: number, name: string, abbreviation: string, venue: string, city: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, `${city}, France`);

/** The 18 clubs of the 2025-26 season. */
export const ligue1: LeagueCatalog = {
  key: 'ligue1',
  league_name: 'Ligue 1',
  sport_ids: [12],
  individual: false,
  teams: [
    club(9101, 'Angers', 'ANG', 'Stade Raymond Kopa', 'Angers'),
    club(9102, 'Auxerre', 'AUX', "Stade de l'Abbé-Deschamps", 'Auxerre'),
    club(9103, 'Brest', 'BRE', 'Stade Francis-Le Blé', 'Brest'),
    club(9104, 'Le Havre', 'HAC', 'Stade Océane', 'Le Havre'),
    club(9105, 'Lens', 'LEN', 'Stade Bollaert-Delelis', 'Lens'),
    club(9106, 'Lille', 'LIL', 'Decathlon Arena', "Villeneuve-d'Ascq"),
    club(9107, 'Lorient', 'LOR', 'Stade du Moustoir', 'Lorient'),
    club(9108, 'Lyon', 'LYO', 'Groupama Stadium', 'Décines-Charpieu'),
    club(9109, 'Marseille', 'MAR', 'Orange Vélodrome', 'Marseille'),
    club(9110, 'Metz', 'MET', 'Stade Saint-Symphorien', 'Longeville-lès-Metz'),
    // Monaco plays in the French league; its stadium is in the Principality.
    team(9111, 'Monaco', '', 'MON', LEAGUE, '', 'Stade Louis II', 'Fontvieille, Monaco'),
    club(9112, 'Nantes', 'NAN', 'Stade de la Beaujoire', 'Nantes'),
    club(9113, 'Nice', 'NIC', 'Allianz Riviera', 'Nice'),
    club(9114, 'Paris FC', 'PFC', 'Stade Jean-Bouin', 'Paris'),
    club(9115, 'Paris Saint-Germain', 'PSG', 'Parc des Princes', 'Paris'),
    club(9116, 'Rennes', 'REN', 'Roazhon Park', 'Rennes'),
    club(9117, 'Strasbourg', 'STR', 'Stade de la Meinau', 'Strasbourg'),
    club(9118, 'Toulouse', 'TOU', 'Stadium de Toulouse', 'Toulouse'),
  ],
};
