/**
 * English number words ("five", "twenty-one", "one hundred and five") to
 * digits. Only whole phrases are converted: a word number inside a sentence is
 * left alone, because "one" in "the one root" is not an answer.
 */

const SMALL: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16,
  seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};

const SCALES: Record<string, bigint> = {
  thousand: 1_000n,
  million: 1_000_000n,
  billion: 1_000_000_000n,
  trillion: 1_000_000_000_000n,
};

/** Words that are part of number phrases; used to tell a bare answer from prose. */
export const NUMBER_WORDS: ReadonlySet<string> = new Set([
  ...Object.keys(SMALL),
  ...Object.keys(SCALES),
  "hundred",
  "dozen",
  "negative",
  "minus",
]);

/**
 * The integer a whole English number phrase names, as a decimal string, or
 * null when `text` is anything else. "a hundred" and "a dozen" count; ordinals
 * and fractions ("a half") do not, to stay clear of ambiguity.
 */
export function parseWordNumber(text: string): string | null {
  // Number words are letters only (and hyphens, spaces): anything with a digit or a command is not one.
  if (!/^[\sa-zA-Z‐-―-]+$/.test(text)) return null;
  const words = text
    .trim()
    .toLowerCase()
    .replace(/[‐-―-]/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "" && w !== "and");
  if (words.length === 0) return null;

  let negative = false;
  if (words[0] === "negative" || words[0] === "minus") {
    negative = true;
    words.shift();
  }
  if (words.length === 0) return null;
  if (words[0] === "a" && words.length > 1) words[0] = "one";

  let total = 0n;
  let group = 0n; // the part below the next scale word
  let sawNumber = false;
  let lastWasSmall = false;
  for (const word of words) {
    const small = SMALL[word];
    if (small !== undefined) {
      // "twenty five" is fine, "five twenty" and "five six" are not numbers.
      if (lastWasSmall && !(group % 100n >= 20n && group % 10n === 0n && small < 10)) return null;
      group += BigInt(small);
      sawNumber = true;
      lastWasSmall = true;
      continue;
    }
    lastWasSmall = false;
    if (word === "hundred") {
      if (!sawNumber) return null;
      group = (group === 0n ? 1n : group) * 100n;
      continue;
    }
    if (word === "dozen") {
      group = (group === 0n ? 1n : group) * 12n;
      sawNumber = true;
      continue;
    }
    const scale = SCALES[word];
    if (scale !== undefined) {
      if (!sawNumber) return null;
      total += (group === 0n ? 1n : group) * scale;
      group = 0n;
      continue;
    }
    return null;
  }
  if (!sawNumber) return null;
  const value = total + group;
  return negative && value !== 0n ? `-${value}` : value.toString();
}
