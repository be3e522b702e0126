import { InputError } from "../errors/input-error";

/**
 * Chance-corrected agreement: judge vs gold, judge vs judge, or annotators.
 *
 * Degenerate chance agreement: when expected agreement p_e is 1 the usual
 * ratio (p_o − p_e) / (1 − p_e) is 0/0. We return κ = 1 if observed agreement
 * p_o is 1 too, else 0. For both coefficients below p_e = 1 only happens when
 * every rating falls in one category, which forces p_o = 1, so in practice
 * "everyone always said Positive" scores 1: the raters never disagreed, and a
 * NaN would poison means and bootstrap intervals over many subsets.
 *
 * Ratings are arbitrary strings compared exactly ("Negative" ≠ "negative").
 */

export interface CohenKappaResult {
  kappa: number;
  /** p_o: share of items on which the two raters agree. */
  observedAgreement: number;
  /** p_e: Σ_k p_A(k)·p_B(k), agreement expected from the raters' own marginals. */
  expectedAgreement: number;
  items: number;
  /** Every category either rater used, in order of first appearance. */
  categories: string[];
}

export interface FleissKappaResult {
  kappa: number;
  /** P̄: mean over items of the share of agreeing rater pairs. */
  observedAgreement: number;
  /** P̄_e: Σ_j p_j², p_j the share of all ratings in category j. */
  expectedAgreement: number;
  items: number;
  /** Raters per item (the same for every item). */
  raters: number;
  /** Share of all ratings per category, in the order of the count columns. */
  categoryShares: number[];
}

function chanceCorrected(observed: number, expected: number): number {
  if (expected === 1) return observed === 1 ? 1 : 0;
  return (observed - expected) / (1 - expected);
}

/** Cohen's κ for two raters; `a[i]` and `b[i]` rate the same item. */
export function cohensKappa(a: readonly string[], b: readonly string[]): CohenKappaResult {
  if (a.length !== b.length) {
    throw new InputError(`the two raters must rate the same items: got ${a.length} and ${b.length} ratings`);
  }
  if (a.length === 0) throw new InputError("Cohen's kappa needs at least one rated item");
  const n = a.length;
  const countsA = new Map<string, number>();
  const countsB = new Map<string, number>();
  const categories: string[] = [];
  let agreements = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) agreements += 1;
    for (const [label, counts] of [
      [x, countsA],
      [y, countsB],
    ] as const) {
      if (!countsA.has(label) && !countsB.has(label)) categories.push(label);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  }
  // Integer Σ_k n_A(k)·n_B(k) = n²·p_e keeps p_e exact, so p_e = 1 is detected exactly.
  let chanceProducts = 0;
  for (const [label, countA] of countsA) chanceProducts += countA * (countsB.get(label) ?? 0);
  const observedAgreement = agreements / n;
  const expectedAgreement = chanceProducts / (n * n);
  const kappa =
    chanceProducts === n * n
      ? chanceCorrected(observedAgreement, 1)
      : (n * agreements - chanceProducts) / (n * n - chanceProducts);
  return { kappa, observedAgreement, expectedAgreement, items: n, categories };
}

/**
 * Fleiss' κ from a count table: `counts[i][j]` = raters who put item i in
 * category j. Every item must have the same number n ≥ 2 of ratings (Fleiss'
 * formula assumes it), and every row the same number of categories.
 */
export function fleissKappa(counts: readonly (readonly number[])[]): FleissKappaResult {
  const first = counts[0];
  if (!first) throw new InputError("Fleiss' kappa needs at least one rated item");
  const categories = first.length;
  if (categories === 0) throw new InputError("the count table needs at least one category column", { record: 0 });
  let raters = -1;
  const columnTotals = new Array<number>(categories).fill(0);
  let pairAgreementSum = 0;
  counts.forEach((row, i) => {
    if (row.length !== categories) {
      throw new InputError(`every item must have ${categories} category counts (as item 0), got ${row.length}`, { record: i });
    }
    let rowTotal = 0;
    let squares = 0;
    row.forEach((count, j) => {
      if (!Number.isInteger(count) || count < 0) {
        throw new InputError(`counts must be non-negative integers, got ${count}`, { record: i, field: String(j) });
      }
      rowTotal += count;
      squares += count * count;
      columnTotals[j]! += count;
    });
    if (raters === -1) {
      if (rowTotal < 2) throw new InputError(`each item needs at least 2 ratings, got ${rowTotal}`, { record: i });
      raters = rowTotal;
    } else if (rowTotal !== raters) {
      throw new InputError(`every item must have the same number of ratings: item 0 has ${raters}, this one ${rowTotal}`, {
        record: i,
      });
    }
    // Σ_j n_ij(n_ij − 1) = Σ_j n_ij² − n: agreeing ordered rater pairs on item i.
    pairAgreementSum += squares - raters;
  });
  const items = counts.length;
  const totalRatings = items * raters;
  const categoryShares = columnTotals.map((total) => total / totalRatings);
  const observedAgreement = pairAgreementSum / (items * raters * (raters - 1));
  let squareTotals = 0;
  for (const total of columnTotals) squareTotals += total * total;
  // Integer comparison: p_e = 1 exactly when one column holds every rating.
  const expectedAgreement = squareTotals / (totalRatings * totalRatings);
  const kappa =
    squareTotals === totalRatings * totalRatings
      ? chanceCorrected(observedAgreement, 1)
      : chanceCorrected(observedAgreement, expectedAgreement);
  return { kappa, observedAgreement, expectedAgreement, items, raters, categoryShares };
}

/**
 * Fleiss' κ from raw ratings: `ratings[i]` holds every rater's label for item
 * i (rater identity does not matter to Fleiss' κ). Category columns follow
 * first appearance; the result's `categories` names them.
 */
export function fleissKappaFromLabels(ratings: readonly (readonly string[])[]): FleissKappaResult & { categories: string[] } {
  // Checked here, not left to the count table, so the messages speak of raters.
  const raters = ratings[0]?.length ?? 0;
  ratings.forEach((item, i) => {
    if (item.length < 2) throw new InputError(`each item needs at least 2 raters, got ${item.length}`, { record: i });
    if (item.length !== raters) {
      throw new InputError(`every item must have the same number of raters: item 0 has ${raters}, this one ${item.length}`, {
        record: i,
      });
    }
  });
  const index = new Map<string, number>();
  for (const item of ratings) for (const label of item) if (!index.has(label)) index.set(label, index.size);
  const table = ratings.map((item) => {
    const row = new Array<number>(index.size).fill(0);
    for (const label of item) row[index.get(label)!]! += 1;
    return row;
  });
  return { ...fleissKappa(table), categories: [...index.keys()] };
}
