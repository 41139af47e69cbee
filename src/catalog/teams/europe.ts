import { team } from './helpers.ts';
import type { TeamRecord } from './types.ts';

const club = (
  id: number,
  name: string,
  abbreviation: string,
  league: string,
  venue: string,
  city: string,
  country: string,
): TeamRecord => team(id, name, '', abbreviation, league, '', venue, `${city}, ${country}`);

/**
 * European clubs outside the five domestic league files, as the UEFA competitions use them. Not a
 * league of its own: ucl and uel pick from this pool (and the domestic leagues) by team_id, so a
 * club has one record wherever it plays. conference is the club's domestic league.
 */
export const otherEuropeanClubs: readonly TeamRecord[] = [
  club(9601, 'Benfica', 'BEN', 'Primeira Liga', 'Estádio da Luz', 'Lisbon', 'Portugal'),
  club(9602, 'Sporting CP', 'SCP', 'Primeira Liga', 'Estádio José Alvalade', 'Lisbon', 'Portugal'),
  club(9603, 'Porto', 'FCP', 'Primeira Liga', 'Estádio do Dragão', 'Porto', 'Portugal'),
  club(9604, 'Braga', 'SCB', 'Primeira Liga', 'Estádio Municipal de Braga', 'Braga', 'Portugal'),
  club(9605, 'PSV Eindhoven', 'PSV', 'Eredivisie', 'Philips Stadion', 'Eindhoven', 'Netherlands'),
  club(9606, 'Ajax', 'AJA', 'Eredivisie', 'Johan Cruijff ArenA', 'Amsterdam', 'Netherlands'),
  club(9607, 'Feyenoord', 'FEY', 'Eredivisie', 'De Kuip', 'Rotterdam', 'Netherlands'),
  club(9608, 'Club Brugge', 'BRU', 'Belgian Pro League', 'Jan Breydel Stadium', 'Bruges', 'Belgium'),
  club(9609, 'Union Saint-Gilloise', 'USG', 'Belgian Pro League', 'Stade Joseph Marien', 'Brussels', 'Belgium'),
  club(9610, 'Genk', 'GNK', 'Belgian Pro League', 'Cegeka Arena', 'Genk', 'Belgium'),
  club(9611, 'Celtic', 'CLT', 'Scottish Premiership', 'Celtic Park', 'Glasgow', 'Scotland'),
  club(9612, 'Rangers', 'RAN', 'Scottish Premiership', 'Ibrox Stadium', 'Glasgow', 'Scotland'),
  club(9613, 'Galatasaray', 'GAL', 'Süper Lig', 'RAMS Park', 'Istanbul', 'Turkey'),
  club(9614, 'Fenerbahçe', 'FEN', 'Süper Lig', 'Şükrü Saracoğlu Stadium', 'Istanbul', 'Turkey'),
  club(9615, 'Olympiacos', 'OLY', 'Super League Greece', 'Karaiskakis Stadium', 'Piraeus', 'Greece'),
  club(9616, 'PAOK', 'PAOK', 'Super League Greece', 'Toumba Stadium', 'Thessaloniki', 'Greece'),
  club(9617, 'Slavia Prague', 'SLA', 'Czech First League', 'Fortuna Arena', 'Prague', 'Czech Republic'),
  club(9618, 'Viktoria Plzeň', 'PLZ', 'Czech First League', 'Doosan Arena', 'Plzeň', 'Czech Republic'),
  club(9619, 'Bodø/Glimt', 'BOD', 'Eliteserien', 'Aspmyra Stadion', 'Bodø', 'Norway'),
  club(9620, 'Copenhagen', 'FCK', 'Danish Superliga', 'Parken', 'Copenhagen', 'Denmark'),
  club(9621, 'Midtjylland', 'FCM', 'Danish Superliga', 'MCH Arena', 'Herning', 'Denmark'),
  club(9622, 'Malmö FF', 'MFF', 'Allsvenskan', 'Eleda Stadion', 'Malmö', 'Sweden'),
  club(9623, 'Red Star Belgrade', 'CZV', 'Serbian SuperLiga', 'Rajko Mitić Stadium', 'Belgrade', 'Serbia'),
  club(9624, 'Dinamo Zagreb', 'DZG', 'HNL', 'Stadion Maksimir', 'Zagreb', 'Croatia'),
  club(9625, 'Ferencváros', 'FTC', 'NB I', 'Groupama Aréna', 'Budapest', 'Hungary'),
  club(9626, 'FCSB', 'FCSB', 'Liga I', 'Arena Națională', 'Bucharest', 'Romania'),
  club(9627, 'Ludogorets Razgrad', 'LUD', 'First League', 'Huvepharma Arena', 'Razgrad', 'Bulgaria'),
  club(9628, 'Young Boys', 'YB', 'Swiss Super League', 'Stadion Wankdorf', 'Bern', 'Switzerland'),
  club(9629, 'Basel', 'BAS', 'Swiss Super League', 'St. Jakob-Park', 'Basel', 'Switzerland'),
  club(9630, 'Red Bull Salzburg', 'SAL', 'Austrian Bundesliga', 'Red Bull Arena', 'Wals-Siezenheim', 'Austria'),
  club(9631, 'Sturm Graz', 'STU', 'Austrian Bundesliga', 'Merkur Arena', 'Graz', 'Austria'),
  club(9632, 'Maccabi Tel Aviv', 'MTA', 'Israeli Premier League', 'Bloomfield Stadium', 'Tel Aviv', 'Israel'),
  club(9633, 'Qarabağ', 'QAR', 'Azerbaijan Premier League', 'Tofiq Bahramov Republican Stadium', 'Baku', 'Azerbaijan'),
  club(9634, 'Kairat Almaty', 'KAI', 'Kazakhstan Premier League', 'Central Stadium', 'Almaty', 'Kazakhstan'),
];
