import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SECTOR_HS_PREFIXES, sectorOfHs } from '../../src/sources/customs/sectors.js';
import { DEFAULT_DEMO_SEED } from '../../src/sources/demo/index.js';
import { generateTrade } from '../../src/sources/demo/trade.js';
import { EXPORT_SECTORS, type ExportSector, type NamedExportSector, OTHER_SECTOR } from '../../src/sources/shared/export-sectors.js';

const NAMED = EXPORT_SECTORS.filter((s): s is NamedExportSector => s !== OTHER_SECTOR);

// One or more 10-digit HSK codes per sector, as the itemtrade API returns them. Mostly
// Korea's HSK 2022 codes for the goods in the comment; where the national suffix is not
// material the 6-digit subheading is padded with 0000 (only the prefix decides the sector).
const SAMPLES: Record<ExportSector, readonly string[]> = {
  'Agricultural Machinery': ['8701912000' /* farm tractor <=18 kW */, '8433510000' /* combine harvester */],
  'Agricultural Products': ['0810100000' /* strawberries */, '1006300000' /* milled rice */],
  'Aircraft and Parts': ['8807300000' /* aeroplane parts (HS 2022) */, '8411910000' /* turbojet parts */],
  Apparel: ['6109100000' /* cotton T-shirts */, '6204620000' /* women's cotton trousers */],
  'Audio and Video Equipment': ['8528725000' /* OLED TV */, '8518290000' /* loudspeakers */],
  'Auto Parts': ['8708999000' /* other vehicle parts */, '8407340000' /* car engine > 1000 cc */],
  Automobiles: ['8703239010', '8703804020' /* electric passenger car */, '8704210000' /* diesel truck */],
  Ceramics: ['6911101000' /* porcelain tableware */],
  Computers: ['8471300000' /* laptops */, '8523511000' /* SSD */, '8473302000' /* computer parts */],
  'Construction Machinery': ['8429110000' /* crawler bulldozer */, '8429520000' /* excavator */, '8431490000' /* their parts */],
  Cosmetics: ['3304991000' /* skin care */, '3305100000' /* shampoo */],
  Displays: ['8524911000' /* OLED module */, '9013801000' /* LCD panel, pre-2022 */],
  'Electrical Equipment': ['8504231000' /* power transformer */, '8536410000' /* relay */, '8544420000' /* cable */],
  'Electronic Components': ['8532240000' /* MLCC */, '8534009000' /* printed circuits */],
  Fertilizers: ['3105200000' /* NPK */],
  'Fine Chemicals': ['3824999090' /* electrolyte */, '3405901000' /* CMP slurry */, '2933990000'],
  'Fishery Products': ['0303890000', '0307430000' /* squid */, '1212211000' /* laver */],
  Footwear: ['6403990000'],
  Furniture: ['9403600000' /* wooden furniture */],
  'Game Consoles and Content': ['9504500000' /* video game consoles */],
  Glass: ['7006002000' /* blank-mask glass */],
  'Home Appliances': ['8418101000' /* refrigerator-freezer */, '8450111000' /* washing machine */, '8516500000' /* microwave */],
  Jewelry: ['7113191000' /* gold jewellery */],
  Leather: ['4202210000' /* leather handbags */],
  Machinery: ['8421219020' /* semiconductor-fab filters */, '8456119000' /* laser machines */, '8413709000' /* pumps */],
  'Medical Devices': ['9021290000' /* dental implants */, '9022120000' /* CT */, '9018909000'],
  'Metal Products': ['7318159000' /* bolts */, '8311900000' /* solder */, '8207190000' /* tools */],
  'Musical Instruments': ['9207100000' /* keyboards */],
  'Nonferrous Metals': ['7410210000' /* copper foil for CCL */, '7606129000' /* aluminium plate */],
  'Optical Equipment': ['9001100000' /* optical fibre */, '9012101000' /* microscopes */, '9013100000' /* telescopic sights */],
  Other: ['2825902050' /* NCM hydroxide, ch. 28 */, '8710001000' /* tanks */, '2711110000' /* LNG */, '3915100000' /* plastic scrap */],
  Paper: ['4810191000' /* printing paper */, '4703292000' /* pulp */],
  Petrochemicals: ['2902430000' /* p-xylene */, '2917360000' /* PTA */, '4002199000' /* SBR */, '2711140000' /* liquefied olefins */],
  'Petroleum Products': ['2710192000', '2710121000' /* gasoline */, '2713110000' /* petroleum coke */],
  Pharmaceuticals: ['3004909900', '3002150000' /* biologics, retail */, '3001900000' /* fillers */],
  Plastics: ['3921909090' /* film */, '3923210000' /* bags */],
  'Power Generation Equipment': ['8411820000' /* gas turbines */, '8406820000' /* steam turbines */, '8502131000' /* generating sets */],
  'Precision Instruments': ['9031809070' /* wafer defect inspection */, '9027509000' /* analysers */, '9102110000' /* watches */],
  'Printed Matter': ['4901990000' /* books */],
  'Processed Food': ['2005991000' /* kimchi */, '1902301000' /* ramyeon */, '2203000000' /* beer */, '2402201000' /* cigarettes */],
  'Railway Vehicles': ['8603100000' /* EMUs */],
  Robots: ['8479500000' /* industrial robots */],
  'Rubber Products': ['4016930000' /* gaskets */],
  'Secondary Batteries': ['8507600000' /* lithium-ion */, '8507909000' /* parts */],
  'Semiconductor Equipment': ['8486201000', '8486402031' /* encapsulation */],
  Semiconductors: ['8542311000', '8542321010' /* DRAM */, '8541490000', '8541100000' /* diodes */],
  Shipbuilding: ['8901200000' /* tankers */, '8905200000' /* drilling platforms */],
  'Solar Cells': ['8541430000' /* PV modules */, '8541420000' /* PV cells */],
  'Sporting Goods': ['9506320000' /* golf balls */, '9507100000' /* fishing rods */],
  Steel: ['7208510000', '7306300000' /* welded pipe */, '7305110000' /* line pipe */],
  'Synthetic Resins': ['3903300000' /* ABS */, '3901100000' /* LDPE */, '3907610000' /* PET */],
  Textiles: ['5603129000' /* nonwovens */, '5407520000' /* polyester fabric */, '6307909000' /* made-up articles */],
  Tires: ['4011101000' /* car tyres */, '4011201005' /* bus and truck tyres */],
  Toys: ['9503009000'],
  'Wireless Communication Devices': ['8517130000' /* smartphones */, '8517799000' /* parts */],
};

describe('shared export sectors', () => {
  it('is 54 named sectors plus Other, unique and sorted', () => {
    assert.equal(EXPORT_SECTORS.length, 55);
    assert.equal(new Set(EXPORT_SECTORS).size, 55);
    assert.ok(EXPORT_SECTORS.includes(OTHER_SECTOR));
    assert.deepEqual([...EXPORT_SECTORS], [...EXPORT_SECTORS].sort());
  });

  it('the demo generates exactly EXPORT_SECTORS every month', () => {
    const { sectorExports } = generateTrade(DEFAULT_DEMO_SEED, '2026-11-23');
    const byMonth = new Map<string, string[]>();
    for (const row of sectorExports) byMonth.set(row.month, [...(byMonth.get(row.month) ?? []), row.sector]);
    assert.ok(byMonth.size > 400);
    for (const [month, sectors] of byMonth) assert.deepEqual([...sectors].sort(), [...EXPORT_SECTORS], month);
  });
});

describe('Customs HS mapping onto EXPORT_SECTORS', () => {
  it('has prefixes for exactly the named sectors', () => {
    assert.deepEqual(Object.keys(SECTOR_HS_PREFIXES).sort(), [...NAMED].sort());
    assert.equal('Bio & Pharmaceuticals' in SECTOR_HS_PREFIXES, false);
  });

  it('uses 2-, 4- or 6-digit prefixes, none assigned twice', () => {
    const owner = new Map<string, string>();
    for (const [sector, prefixes] of Object.entries(SECTOR_HS_PREFIXES)) {
      assert.ok(prefixes.length > 0, sector);
      for (const p of prefixes) {
        assert.match(p, /^(\d{2}|\d{4}|\d{6})$/, `${sector}: ${p}`);
        assert.equal(owner.get(p), undefined, `${p} is in both ${owner.get(p) ?? ''} and ${sector}`);
        owner.set(p, sector);
        // The prefix itself resolves to its sector (longest match is the prefix).
        assert.equal(sectorOfHs(p), sector, p);
      }
    }
  });

  it('reaches every named sector from one of its own prefixes', () => {
    for (const sector of NAMED) {
      const prefixes = SECTOR_HS_PREFIXES[sector];
      assert.ok(prefixes.some((p) => sectorOfHs(p.padEnd(10, '0')) === sector), sector);
    }
  });

  it('maps hand-picked HSK codes of every sector, Other included', () => {
    for (const sector of EXPORT_SECTORS) {
      for (const code of SAMPLES[sector]) {
        assert.match(code, /^\d{10}$/);
        assert.equal(sectorOfHs(code), sector, code);
      }
    }
  });

  it('resolves overlaps by the longest prefix', () => {
    const cases: [string, ExportSector][] = [
      // Resins in primary forms vs plastic articles; 3915 scrap is neither.
      ['3907610000', 'Synthetic Resins'], ['3914000000', 'Synthetic Resins'], ['3916100000', 'Plastics'], ['3926909000', 'Plastics'], ['3915900000', 'Other'],
      // Solar cells inside 8541.
      ['8541430000', 'Solar Cells'], ['8541420000', 'Solar Cells'], ['8541410000', 'Semiconductors'], ['8541490000', 'Semiconductors'],
      // Carve-outs of ch. 84.
      ['8486201000', 'Semiconductor Equipment'], ['8479500000', 'Robots'], ['8479899000', 'Machinery'], ['8471300000', 'Computers'],
      ['8473302000', 'Computers'], ['8473400000', 'Machinery'], ['8429520000', 'Construction Machinery'], ['8431490000', 'Construction Machinery'],
      ['8431310000', 'Machinery'], ['8433510000', 'Agricultural Machinery'], ['8422110000', 'Home Appliances'], ['8422190000', 'Machinery'],
      ['8415101000', 'Home Appliances'],
      // Engines: vehicle and aircraft engines leave power generation.
      ['8407340000', 'Auto Parts'], ['8408200000', 'Auto Parts'], ['8408100000', 'Power Generation Equipment'], ['8411120000', 'Aircraft and Parts'],
      ['8411910000', 'Aircraft and Parts'], ['8411820000', 'Power Generation Equipment'], ['8411990000', 'Power Generation Equipment'],
      ['8501530000', 'Power Generation Equipment'],
      // Tractors.
      ['8701912000', 'Agricultural Machinery'], ['8701100000', 'Agricultural Machinery'], ['8701210000', 'Automobiles'], ['8701200000', 'Automobiles'],
      // Games, toys, sports.
      ['9504500000', 'Game Consoles and Content'], ['9503009000', 'Toys'], ['9506320000', 'Sporting Goods'], ['9507100000', 'Sporting Goods'], ['9505100000', 'Other'],
      // Ch. 90: optical, displays, medical, precision.
      ['9013801000', 'Displays'], ['9013100000', 'Optical Equipment'], ['9006590000', 'Optical Equipment'], ['9018909000', 'Medical Devices'],
      ['9022120000', 'Medical Devices'], ['9024100000', 'Precision Instruments'], ['9033000000', 'Precision Instruments'], ['9017200000', 'Precision Instruments'],
      ['9023000000', 'Other'],
      // Chemicals.
      ['3004909900', 'Pharmaceuticals'], ['3006300000', 'Pharmaceuticals'], ['3102100000', 'Fertilizers'], ['2902430000', 'Petrochemicals'],
      ['2933990000', 'Fine Chemicals'], ['2929100000', 'Petrochemicals'], ['2929900000', 'Fine Chemicals'], ['3304991000', 'Cosmetics'],
      ['3301290000', 'Fine Chemicals'], ['3306100000', 'Fine Chemicals'], ['3808940000', 'Fine Chemicals'], ['2801100000', 'Other'],
      ['2711140000', 'Petrochemicals'], ['2711120000', 'Petroleum Products'], ['2711110000', 'Other'],
      // Textiles, apparel, footwear, leather.
      ['6110200000', 'Apparel'], ['6204620000', 'Apparel'], ['6006320000', 'Textiles'], ['6302600000', 'Textiles'], ['5208120000', 'Textiles'],
      ['6403990000', 'Footwear'], ['4107990000', 'Leather'], ['4303100000', 'Leather'],
      // Rubber.
      ['4011101000', 'Tires'], ['4012200000', 'Tires'], ['4013100000', 'Tires'], ['4016930000', 'Rubber Products'], ['4002199000', 'Petrochemicals'],
      // Metals.
      ['7208510000', 'Steel'], ['7306300000', 'Steel'], ['7308909000', 'Metal Products'], ['7318159000', 'Metal Products'], ['8207190000', 'Metal Products'],
      ['8302420000', 'Metal Products'], ['7403110000', 'Nonferrous Metals'], ['8112920000', 'Nonferrous Metals'],
      // Glass, ceramics, paper, print, furniture, instruments, jewelry.
      ['7007190000', 'Glass'], ['6907210000', 'Ceramics'], ['4703292000', 'Paper'], ['4819100000', 'Paper'], ['4911100000', 'Printed Matter'],
      ['9401710000', 'Furniture'], ['9202900000', 'Musical Instruments'], ['7108120000', 'Jewelry'],
      // Food: fish is ch. 03 (and laver), prepared fish is processed food.
      ['0303890000', 'Fishery Products'], ['1604140000', 'Processed Food'], ['0201100000', 'Agricultural Products'], ['1507100000', 'Agricultural Products'],
      ['2203000000', 'Processed Food'], ['1212211000', 'Fishery Products'], ['1212990000', 'Agricultural Products'],
      // Transport.
      ['8806220000', 'Aircraft and Parts'], ['8607199000', 'Railway Vehicles'], ['8901200000', 'Shipbuilding'], ['8907100000', 'Other'],
      ['8711200000', 'Other'], ['8708999000', 'Auto Parts'], ['8705100000', 'Automobiles'],
      // Ch. 85 carve-outs.
      ['8524911000', 'Displays'], ['8528725000', 'Audio and Video Equipment'], ['8529909000', 'Audio and Video Equipment'], ['8517130000', 'Wireless Communication Devices'],
      ['8523511000', 'Computers'], ['8523410000', 'Audio and Video Equipment'], ['8532240000', 'Electronic Components'], ['8540890000', 'Electronic Components'],
      ['8504409090', 'Electrical Equipment'], ['8506500000', 'Electrical Equipment'], ['8512200000', 'Electrical Equipment'], ['8537109000', 'Electrical Equipment'],
      ['8544420000', 'Electrical Equipment'], ['8539520000', 'Electrical Equipment'], ['8516500000', 'Home Appliances'], ['8516800000', 'Electrical Equipment'],
      ['8508110000', 'Home Appliances'], ['8507600000', 'Secondary Batteries'], ['8549110000', 'Other'],
    ];
    for (const [code, sector] of cases) assert.equal(sectorOfHs(code), sector, code);
  });

  it('ignores separators in the code', () => {
    assert.equal(sectorOfHs('8541.43-0000'), 'Solar Cells');
    assert.equal(sectorOfHs(''), OTHER_SECTOR);
  });
});
