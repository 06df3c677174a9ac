// American depositary shares (reference data beside the calculations that use it): how many of
// the issuer's ordinary shares one ADS represents. The price of an ADS ticker is per ADS, the
// share counts its filings give (dei:EntityCommonStockSharesOutstanding, the cover page) are
// ordinary shares, and no taxonomy that companyfacts carries tags the ratio, so it is kept here,
// each with where it is stated. A foreign filer whose ticker is not listed here is taken as
// trading its ordinary shares one for one (New York registry shares, Canadian 40-F filers' common
// shares). docs/sources.md ("sec"), docs/calculations.md (section 9).

export interface AdsRatio {
  /** Ordinary shares one ADS represents. */
  ordinaryPerAds: number;
  /** Where the ratio is stated. */
  source: string;
}

const RATIOS: Readonly<Record<string, AdsRatio>> = {
  TSM: { ordinaryPerAds: 5, source: "Taiwan Semiconductor Manufacturing's Form 20-F cover page (securities registered under Section 12(b)): one ADS represents five common shares" },
  BABA: { ordinaryPerAds: 8, source: "Alibaba Group's Form 20-F cover page: one ADS represents eight ordinary shares (since the 2019 share subdivision)" },
  TM: { ordinaryPerAds: 10, source: "Toyota Motor's Form 20-F cover page: one ADS represents ten shares of common stock (since the 2021 share split)" },
};

/** The ADS ratio of a US ticker; null when it does not trade as ADSs (or is not listed here). */
export function adsRatioOf(ticker: string): AdsRatio | null {
  return RATIOS[ticker] ?? null;
}

/** A count of ordinary shares in the ticker's listed units (ADSs for an ADS ticker). */
export function listedShares(ticker: string, ordinary: number): number {
  const ratio = adsRatioOf(ticker);
  return ratio === null ? ordinary : ordinary / ratio.ordinaryPerAds;
}
