/**
 * Name pools for generated players, by the region a league recruits from, so that a J-League
 * squad reads Japanese and an IPL one South Asian. The people are fictional; the names are common.
 */

export type NameRegion = 'north_america' | 'europe' | 'japan' | 'cricket';

export interface NamePool {
  first: readonly string[];
  last: readonly string[];
}

const NORTH_AMERICA: NamePool = {
  first: [
    'Aaron', 'Andre', 'Brandon', 'Bryce', 'Caleb', 'Cameron', 'Chris', 'Darius', 'DeAndre', 'Derek',
    'Devin', 'Dylan', 'Elijah', 'Eric', 'Evan', 'Gavin', 'Grant', 'Hunter', 'Isaiah', 'Jalen',
    'Jamal', 'Jordan', 'Josh', 'Justin', 'Keegan', 'Kyle', 'Landon', 'Malik', 'Marcus', 'Mason',
    'Nolan', 'Owen', 'Parker', 'Quinn', 'Reid', 'Ryan', 'Silas', 'Trevor', 'Tyler', 'Zach',
  ],
  last: [
    'Adams', 'Bailey', 'Brooks', 'Bryant', 'Carter', 'Coleman', 'Crawford', 'Davis', 'Dawson',
    'Ellis', 'Fisher', 'Foster', 'Griffin', 'Hayes', 'Henderson', 'Holloway', 'Jackson', 'Jenkins',
    'Johnson', 'Kelly', 'Lawson', 'Marshall', 'Mitchell', 'Morgan', 'Murphy', 'Nelson', 'Owens',
    'Palmer', 'Porter', 'Reed', 'Richardson', 'Robinson', 'Sanders', 'Simmons', 'Sullivan',
    'Thompson', 'Turner', 'Walker', 'Warren', 'Whitfield',
  ],
};

const EUROPE: NamePool = {
  first: [
    'Adrien', 'Alessandro', 'Andrés', 'Antoine', 'Bruno', 'Carlos', 'Cristian', 'Daniel', 'Diego',
    'Enzo', 'Federico', 'Florian', 'Gonzalo', 'Hugo', 'Ibrahim', 'Ivan', 'Jan', 'Jonas', 'Kai',
    'Leon', 'Lorenzo', 'Luca', 'Lucas', 'Marco', 'Mateo', 'Matteo', 'Mikel', 'Niklas', 'Oliver',
    'Pablo', 'Pedro', 'Rafael', 'Sami', 'Sergio', 'Theo', 'Thomas', 'Tiago', 'Victor', 'Youssef',
    'Yusuf',
  ],
  last: [
    'Almeida', 'Bakker', 'Bernard', 'Bianchi', 'Costa', 'Diallo', 'Dubois', 'Fernández', 'Ferrari',
    'Fischer', 'Fontaine', 'García', 'Hansen', 'Hoffmann', 'Jansen', 'Keller', 'Kovač', 'Lambert',
    'Lemoine', 'López', 'Marchetti', 'Martínez', 'Mendes', 'Moreau', 'Müller', 'Navarro', 'Nielsen',
    'Novak', 'Pereira', 'Ramos', 'Ricci', 'Romero', 'Rossi', 'Santos', 'Schmidt', 'Silva', 'Traoré',
    'Vidal', 'Wagner', 'Zimmermann',
  ],
};

const JAPAN: NamePool = {
  first: [
    'Daiki', 'Daisuke', 'Haruto', 'Hayato', 'Hiroki', 'Hiroshi', 'Kaito', 'Kazuki', 'Kenta', 'Koji',
    'Kosuke', 'Makoto', 'Masato', 'Naoki', 'Ren', 'Riku', 'Ryo', 'Ryota', 'Shota', 'Sho', 'Sota',
    'Takumi', 'Taro', 'Tatsuya', 'Tomoya', 'Yamato', 'Yuki', 'Yuma', 'Yusuke', 'Yuta',
  ],
  last: [
    'Abe', 'Endo', 'Fujita', 'Goto', 'Hasegawa', 'Hayashi', 'Ikeda', 'Inoue', 'Ishikawa', 'Ito',
    'Kato', 'Kimura', 'Kobayashi', 'Kondo', 'Maeda', 'Matsumoto', 'Mori', 'Nakamura', 'Nakano',
    'Ogawa', 'Okada', 'Saito', 'Sakamoto', 'Sasaki', 'Shimizu', 'Suzuki', 'Takahashi', 'Tanaka',
    'Watanabe', 'Yamamoto',
  ],
};

const CRICKET: NamePool = {
  first: [
    'Abhishek', 'Ajay', 'Arjun', 'Ashwin', 'Babar', 'Dinesh', 'Fakhar', 'Hardik', 'Harry', 'Ishan',
    'Jason', 'Jos', 'Kane', 'Karthik', 'Kusal', 'Liam', 'Marnus', 'Mitchell', 'Mohammed', 'Navin',
    'Pat', 'Prithvi', 'Quinton', 'Rahul', 'Rashid', 'Ravi', 'Rohit', 'Sam', 'Shaheen', 'Shakib',
    'Shubman', 'Sanju', 'Steve', 'Suryakumar', 'Tim', 'Travis', 'Varun', 'Virat', 'Wanindu',
    'Yashasvi',
  ],
  last: [
    'Agarwal', 'Ahmed', 'Ali', 'Bairstow', 'Bhatt', 'Chahal', 'Chawla', 'Cummins', 'de Silva',
    'Gill', 'Hasan', 'Iyer', 'Jadeja', 'Jaiswal', 'Khan', 'Kishan', 'Kumar', 'Latham', 'Malik',
    'Mendis', 'Mishra', 'Nair', 'Pandya', 'Patel', 'Perera', 'Rahman', 'Rao', 'Reddy', 'Root',
    'Samson', 'Shah', 'Sharma', 'Singh', 'Smith', 'Starc', 'Thakur', 'Verma', 'Warner', 'Williamson',
    'Yadav',
  ],
};

export const NAME_POOLS: Readonly<Record<NameRegion, NamePool>> = {
  north_america: NORTH_AMERICA,
  europe: EUROPE,
  japan: JAPAN,
  cricket: CRICKET,
};
