import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'La Liga';
const club = (id: number, name: string, abbreviation: string, venue: string, city: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, `${city}, Spain`);

/** The 20 clubs of the 2025-26 season. */
export const laliga: LeagueCatalog = {
  key: 'laliga',
  league_name: 'La Liga',
  sport_ids: [14],
  individual: false,
  teams: [
    club(9301, 'Alavés', 'ALA', 'Mendizorrotza', 'Vitoria-Gasteiz'),
    club(9302, 'Athletic Club', 'ATH', 'San Mamés', 'Bilbao'),
    club(9303, 'Atlético Madrid', 'ATM', 'Riyadh Air Metropolitano', 'Madrid'),
    club(9304, 'Barcelona', 'BAR', 'Spotify Camp Nou', 'Barcelona'),
    club(9305, 'Celta Vigo', 'CEL', 'Abanca-Balaídos', 'Vigo'),
    club(9306, 'Elche', 'ELC', 'Estadio Manuel Martínez Valero', 'Elche'),
    club(9307, 'Espanyol', 'ESP', 'RCDE Stadium', 'Cornellà de Llobregat'),
    club(9308, 'Getafe', 'GET', 'Coliseum', 'Getafe'),
    club(9309, 'Girona', 'GIR', 'Estadi Montilivi', 'Girona'),
    club(9310, 'Levante', 'LEV', 'Estadi Ciutat de València', 'Valencia'),
    club(9311, 'Mallorca', 'MLL', 'Estadi Mallorca Son Moix', 'Palma'),
    club(9312, 'Osasuna', 'OSA', 'El Sadar', 'Pamplona'),
    club(9313, 'Rayo Vallecano', 'RAY', 'Estadio de Vallecas', 'Madrid'),
    // Betis play at La Cartuja while the Benito Villamarín is rebuilt.
    club(9314, 'Real Betis', 'BET', 'Estadio La Cartuja', 'Seville'),
    club(9315, 'Real Madrid', 'RMA', 'Santiago Bernabéu', 'Madrid'),
    club(9316, 'Real Oviedo', 'OVI', 'Estadio Carlos Tartiere', 'Oviedo'),
    club(9317, 'Real Sociedad', 'RSO', 'Reale Arena', 'San Sebastián'),
    club(9318, 'Sevilla', 'SEV', 'Ramón Sánchez-Pizjuán', 'Seville'),
    club(9319, 'Valencia', 'VAL', 'Mestalla', 'Valencia'),
    club(9320, 'Villarreal', 'VIL', 'Estadio de la Cerámica', 'Villarreal'),
  ],
};
