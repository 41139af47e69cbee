import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'Serie A';
const club = (id: number, name: string, abbreviation: string, venue: string, city: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, `${city}, Italy`);

/** The 20 clubs of the 2025-26 season. */
export const seriea: LeagueCatalog = {
  key: 'seriea',
  league_name: 'Serie A',
  sport_ids: [15],
  individual: false,
  teams: [
    club(9401, 'Atalanta', 'ATA', 'Gewiss Stadium', 'Bergamo'),
    club(9402, 'Bologna', 'BOL', "Stadio Renato Dall'Ara", 'Bologna'),
    club(9403, 'Cagliari', 'CAG', 'Unipol Domus', 'Cagliari'),
    club(9404, 'Como', 'COM', 'Stadio Giuseppe Sinigaglia', 'Como'),
    club(9405, 'Cremonese', 'CRE', 'Stadio Giovanni Zini', 'Cremona'),
    club(9406, 'Fiorentina', 'FIO', 'Stadio Artemio Franchi', 'Florence'),
    club(9407, 'Genoa', 'GEN', 'Stadio Luigi Ferraris', 'Genoa'),
    club(9408, 'Hellas Verona', 'VER', 'Stadio Marcantonio Bentegodi', 'Verona'),
    club(9409, 'Inter', 'INT', 'San Siro', 'Milan'),
    club(9410, 'Juventus', 'JUV', 'Allianz Stadium', 'Turin'),
    club(9411, 'Lazio', 'LAZ', 'Stadio Olimpico', 'Rome'),
    club(9412, 'Lecce', 'LEC', 'Stadio Via del Mare', 'Lecce'),
    club(9413, 'AC Milan', 'MIL', 'San Siro', 'Milan'),
    club(9414, 'Napoli', 'NAP', 'Stadio Diego Armando Maradona', 'Naples'),
    club(9415, 'Parma', 'PAR', 'Stadio Ennio Tardini', 'Parma'),
    club(9416, 'Pisa', 'PIS', 'Arena Garibaldi', 'Pisa'),
    club(9417, 'Roma', 'ROM', 'Stadio Olimpico', 'Rome'),
    club(9418, 'Sassuolo', 'SAS', 'Mapei Stadium', 'Reggio Emilia'),
    club(9419, 'Torino', 'TOR', 'Stadio Olimpico Grande Torino', 'Turin'),
    club(9420, 'Udinese', 'UDI', 'Bluenergy Stadium', 'Udine'),
  ],
};
