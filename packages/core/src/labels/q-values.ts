/**
 * Q-value of a prefix (spec §2): the share of rollouts continuing from it that
 * reach the correct final answer, Q = (1/M) Σ_j r*_j with r* ∈ {0, 1}.
 */
export function qValueFromOutcomes(outcomes: readonly (boolean | 0 | 1)[]): number {
  if (outcomes.length === 0) throw new RangeError("a Q-value needs at least one rollout outcome");
  let correct = 0;
  for (const outcome of outcomes) if (outcome === true || outcome === 1) correct += 1;
  return correct / outcomes.length;
}

/** Checks that every Q-value is a probability; label rules are meaningless otherwise. */
export function assertQValues(values: readonly number[], what = "Q-value"): void {
  values.forEach((q, i) => {
    if (!Number.isFinite(q) || q < 0 || q > 1) throw new RangeError(`${what} ${i} is ${q}; Q-values lie in [0, 1]`);
  });
}

/**
 * Value of the same prefix under a best-of-n prover μ (Rel-Effective, spec §2):
 * the chance that at least one of n independent rollouts succeeds.
 */
export function bestOfNValue(q: number, n: number): number {
  return 1 - (1 - q) ** n;
}
