/**
 * The simulated models the simulated cluster serves. Each is a pure,
 * deterministic `SimModel` (same prompt and seed → same text; no I/O, no
 * timers) built from a zod-validated config, and also exposes `kind` and its
 * resolved `config`. The world they live in (problems, the policy's Markov
 * chain, truth, exact Q-values) is documented in ../world/index.ts.
 *
 * Prompts. Chat prompts are read from the last user message (with
 * continueFinalMessage, the final assistant message is the prefix, and only
 * the continuation is returned); completion prompts are read as a whole, so a
 * chat template around the prompt does no harm. A prompt a model cannot read
 * throws `SimPromptError` (HTTP 400).
 *
 * Temperature. 0 is greedy decoding: the policy and the segmenter take their
 * most probable outcome (policy: no errors while errorRate < 0.5; segmenter:
 * faulty only if faultRate > 0.5); a judge draws its verdict from a stream
 * fixed by the prompt alone, so it is wrong on the same (1 − accuracy) share of
 * prompts every time, as a real greedy judge is. Any temperature > 0
 * samples with the configured probabilities; its value is otherwise ignored.
 * The random stream of a sample is seeded by (model id, seed, hash of the
 * whole prompt).
 *
 * Models:
 * - `sim-policy` {errorRate p = 0.15, recoveryRate q = 0.1}: answers core's
 *   self-segmenting policy prompt ("Problem: …") with `<chunk>`s separated by
 *   "\n", or continues a partial solution (chat prefix, or a completion prompt
 *   = policy prompt + partial solution) from the state it has written.
 * - `sim-judge-<quality>` {accuracy a, positiveBias b, unparseableRate u,
 *   blindTo, suspiciousOf}:
 *   answers core's StepWiser judge prompt with a rationale ("The goal of this
 *   chunk is …. Checking: …") and "Final Judgment: \boxed{Positive|Negative}".
 *   The truth is the world's (`truthOfSolution` on history + chunk), or the
 *   arith-checker's verdict when problem, history or chunk is not world text.
 *   With probability u the answer has no valid verdict (an odd box or none);
 *   otherwise the honest verdict is the truth with probability a, and a
 *   Negative verdict then turns Positive with probability b, so
 *     P(Positive | Positive) = a + (1 − a)·b,  P(Positive | Negative) = 1 − a + a·b.
 *   b = 1 is the collapse toward Positive the paper reports without balanced
 *   training data. Those errors are independent per prompt and sample, so
 *   votes and retries average them out. Systematic errors do not: a mistake
 *   whose kind (a `truthOfSolution` reason) is in `blindTo` is always called
 *   Positive, and a correct chunk of a kind in `suspiciousOf` ("recovery",
 *   "multiplication", "division") always Negative, on every sample (the answer
 *   may still be unparseable with probability u), with a rationale that
 *   argues that verdict. Presets (a, b, u): strong (0.95, 0, 0.01), medium
 *   (0.8, 0.05, 0.02), weak (0.65, 0.15, 0.05), all without systematic
 *   errors; correlated = medium's noise + blindTo ["wrong-input"] +
 *   suspiciousOf ["recovery"]: it reads each chunk against the history as
 *   written, so a step that correctly continues from an earlier wrong value
 *   passes and a right recheck that contradicts the history fails. In text
 *   that is not the world's only "arithmetic-error" (a wrong equation), and
 *   the suspicious kinds by their wording ("Wait", "let me recheck"; ×, ÷),
 *   can be recognised; see ./judge.ts.
 *   Given a ProcessBench critic prompt (core's `buildProcessBenchCriticPrompt`,
 *   v1's wording or v2's official one, read alike by ./critic-prompt.ts), a
 *   judge judges the paragraphs in order as chunks with their history, with
 *   the same verdict rules and one random stream, stops at the first
 *   Negative and ends with "\boxed{i}" (or "\boxed{-1}"); with probability u
 *   the last box holds no index either critic reading accepts.
 * - `sim-segmenter` {faultRate = 0}: answers core's chunk-segmenter prompt by
 *   wrapping the solution in `<chunk>` tags (blank lines, then "Step N:"
 *   markers, then sentences that compute; a final-answer sentence on its own),
 *   text unaltered; with probability faultRate one character is changed, so
 *   core's `locateTaggedChunks` rejects the answer.
 * - `arith-checker`: deterministic; checks every equation between numbers in
 *   the new chunk of any StepWiser judge prompt (see ./arithmetic.ts) and says
 *   Negative iff one is wrong, naming it; given a critic prompt, it boxes the
 *   first paragraph with a wrong equation, or -1.
 *
 * `createSimModels(config)` builds the default set, adjusted per model id
 * (see `simModelsConfigSchema`).
 */
export * from "./kinds";
export * from "./policy";
export * from "./judge";
export * from "./judge-expectation";
export * from "./judge-prompt";
export * from "./critic-prompt";
export * from "./segmenter";
export * from "./arith-checker";
export * from "./arithmetic";
export * from "./protocol-beliefs";
export * from "./thinkprm";
export * from "./genprm";
export * from "./math-prm";
export * from "./outcome-rm";
export * from "./registry";
