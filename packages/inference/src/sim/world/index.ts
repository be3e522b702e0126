/**
 * The arithmetic world: the ground truth behind the simulated models.
 *
 * Problems. `generateProblem(seed | { seed, steps })` draws a start quantity
 * (2–20) and k operations (default 3–6): add or subtract 1–12, multiply by
 * 2–4, divide by 2–5 only when exact; every running value stays a positive
 * integer ≤ 120. The problem is rendered in English from one of three layouts
 * and several wordings per operation ("buys 5 more", "doubles what she has",
 * "splits what he has into 3 equal groups and keeps one group"). The text is
 * self-sufficient: `parseProblem(text)` recovers the problem exactly (it
 * renders its reading back and requires the identical text). The id is a hash
 * of the text, so a parsed problem has the same id as the generated one.
 *
 * Solutions. One chunk per operation, "She buys 5 more: 12 + 5 = 17.", then
 * "So the answer is \boxed{c}." with the running value as written. The policy
 * is a Markov chain over {right, wrong} running value:
 *   - from a right value, a step errs with probability p (`errorRate`): a
 *     small off-by (±1..3 around the result) or, with 25% of the error mass,
 *     the confused operation (+ for ×, × for +, + for −, − for ÷). The value
 *     then continues from what was written.
 *   - from a wrong value, a step recovers with probability q (`recoveryRate`):
 *     "Wait, let me recheck: 12 + 5 = 17, not 18. So now 17 × 2 = 34." (the
 *     recheck redoes the steps since the value went wrong). Otherwise it applies
 *     the next operation to the wrong value (with probability p also slipping
 *     again); a wrong value divided unevenly is rounded to the neighbour that is
 *     not the true result.
 *   - no error ever lands on the true value by accident, and operations are
 *     injective, so "the written value is right" is exactly the chain's state,
 *     and the answer is right iff the state is right when the answer is given.
 *
 * Truth (`truthOfSolution`). A step chunk is correct iff it applies the
 * problem's next operation to the true running value and gets the true result.
 * A step that correctly continues from a wrong value is NOT correct (reason
 * "wrong-input"): its input is wrong. A recovery is correct iff its rechecks are
 * arithmetically right and its final equation is the true step. The answer
 * chunk is correct iff it states the true answer. The first error index is the
 * first chunk that is not correct (-1 if none). Chunks are judged by their
 * equations; the wording of the clause is not checked.
 *
 * True Q-values. Q of a prefix = probability that the policy, continuing from
 * it, gives the right answer. With r operations left and state s:
 *   V(0, right) = 1, V(0, wrong) = 0,
 *   V(r, right) = (1 − p)·V(r−1, right) + p·V(r−1, wrong),
 *   V(r, wrong) = q·V(r−1, right) + (1 − q)·V(r−1, wrong).
 * Q_0 = V(k, right); with q = 0 a right prefix has Q = (1 − p)^r and a wrong
 * one Q = 0. A prefix ending with the answer has Q = 1 if it is right, else 0.
 *
 * Continuation. A partial solution (complete `<chunk>…</chunk>`s, whitespace
 * between them, maybe a cut-off last chunk or opening tag) is read back: the
 * state comes from the written equations, not from the seed that wrote them. A
 * cut-off chunk is finished as one of the chunks the policy could write from
 * that state, drawn among those it begins. Text that this world does not write
 * throws `WorldParseError`.
 *
 * Temperature. Models treat temperature 0 as greedy decoding (the most
 * probable chunk each time: no errors while p < 0.5) and any temperature > 0
 * as sampling with the configured probabilities; the value itself is ignored.
 */
export * from "./errors";
export * from "./problem";
export * from "./solution";
export * from "./q-values";
export * from "./continuation";
