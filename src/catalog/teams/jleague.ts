import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'J1 League';
const club = (id: number, name: string, abbreviation: string, venue: string, location: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, location);

/** The 20 clubs of the 2025 J1 League season; location is "City, Prefecture". */
export const jleague: LeagueCatalog = {
  key: 'jleague',
  league_name: 'J1 League',
  sport_ids: [19],
  individual: false,
  teams: [
    club(9501, 'Kashima Antlers', 'KSM', 'Kashima Soccer Stadium', 'Kashima, Ibaraki'),
    club(9502, 'Urawa Red Diamonds', 'URA', 'Saitama Stadium 2002', 'Saitama, Saitama'),
    club(9503, 'Kashiwa Reysol', 'KSW', 'Sankyo Frontier Kashiwa Stadium', 'Kashiwa, Chiba'),
    club(9504, 'FC Tokyo', 'FCT', 'Ajinomoto Stadium', 'Chofu, Tokyo'),
    club(9505, 'Tokyo Verdy', 'TYV', 'Ajinomoto Stadium', 'Chofu, Tokyo'),
    club(9506, 'FC Machida Zelvia', 'MAC', 'Machida GION Stadium', 'Machida, Tokyo'),
    club(9507, 'Kawasaki Frontale', 'KAW', 'Uvance Todoroki Stadium by Fujitsu', 'Kawasaki, Kanagawa'),
    club(9508, 'Yokohama F. Marinos', 'YFM', 'Nissan Stadium', 'Yokohama, Kanagawa'),
    club(9509, 'Yokohama FC', 'YFC', 'NHK Spring Mitsuzawa Football Stadium', 'Yokohama, Kanagawa'),
    club(9510, 'Shonan Bellmare', 'SHO', 'Lemon Gas Stadium Hiratsuka', 'Hiratsuka, Kanagawa'),
    club(9511, 'Albirex Niigata', 'NII', 'Denka Big Swan Stadium', 'Niigata, Niigata'),
    club(9512, 'Shimizu S-Pulse', 'SHI', 'IAI Stadium Nihondaira', 'Shizuoka, Shizuoka'),
    club(9513, 'Nagoya Grampus', 'NAG', 'Toyota Stadium', 'Toyota, Aichi'),
    club(9514, 'Kyoto Sanga', 'KYO', 'Sanga Stadium by Kyocera', 'Kameoka, Kyoto'),
    club(9515, 'Gamba Osaka', 'GAM', 'Panasonic Stadium Suita', 'Suita, Osaka'),
    club(9516, 'Cerezo Osaka', 'CER', 'Yodoko Sakura Stadium', 'Osaka, Osaka'),
    club(9517, 'Vissel Kobe', 'KOB', 'Noevir Stadium Kobe', 'Kobe, Hyogo'),
    club(9518, 'Fagiano Okayama', 'OKA', 'JFE Harenokuni Stadium', 'Okayama, Okayama'),
    club(9519, 'Sanfrecce Hiroshima', 'HIR', 'Edion Peace Wing Hiroshima', 'Hiroshima, Hiroshima'),
    club(9520, 'Avispa Fukuoka', 'FUK', 'Best Denki Stadium', 'Fukuoka, Fukuoka'),
  ],
};
