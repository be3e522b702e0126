/**
 * An answer the grader's guards let through whose CAS work cannot be
 * interrupted: the exact central binomial coefficient of 300,000 (about 90,000
 * digits, under the magnitude guard) takes around a second or more whatever the
 * grader's own deadline says. If the grader learns to refuse it quickly, the
 * first test of run-grading.test.ts fails: pick another such answer.
 */
export const PATHOLOGICAL_ANSWER = String.raw`\binom{300000}{150000}`;
