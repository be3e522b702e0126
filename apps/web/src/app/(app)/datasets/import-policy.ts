import { DEFAULT_MAX_INVALID_SHARE, type OnInvalidPolicy } from "@stepwiser/core";

/*
 * The import form's "On invalid records" choice, without React: the options
 * shown, the share bound typed as a percentage, and the options the import
 * receives. Unit-tested in apps/web/test.
 */

export const ON_INVALID_CHOICES: ReadonlyArray<readonly [OnInvalidPolicy, string]> = [
  ["fail", "Fail the import"],
  ["skip", "Skip and report"],
];

/** The bound as the form shows it first: 5 (percent). */
export const DEFAULT_MAX_INVALID_PERCENT = String(DEFAULT_MAX_INVALID_SHARE * 100);

export type PolicyOptions = { onInvalid: "fail" } | { onInvalid: "skip"; maxInvalidShare: number };

/**
 * The options for the chosen policy, or what is wrong with the percentage
 * typed for a skip import (a number from 0 to 100).
 */
export function policyOptionsOf(onInvalid: OnInvalidPolicy, percentText: string): { options: PolicyOptions } | { error: string } {
  if (onInvalid === "fail") return { options: { onInvalid } };
  const text = percentText.trim().replace(/\s*%$/, "");
  const percent = Number(text);
  if (text === "" || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    return { error: `Largest invalid share: give a percentage from 0 to 100 (got "${percentText}").` };
  }
  // 5 % is 0.05 exactly, not 0.05000000000000001.
  return { options: { onInvalid, maxInvalidShare: Number((percent / 100).toPrecision(12)) } };
}

/** The form's note under the buttons: what the chosen policy does with a bad record. */
export function policyNote(onInvalid: OnInvalidPolicy): string {
  return onInvalid === "fail"
    ? "The import reads the whole file in one transaction: a bad record anywhere stops it with the file, line (a Parquet file: row) and field, and nothing is stored."
    : "The import reads the whole file in one transaction: bad records are left out and listed in the import's report, unless more than the largest invalid share of the records are bad; then nothing is stored. A broken file layout always stops the import.";
}
