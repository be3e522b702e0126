import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the annotate configuration, for the launch form. */
export const annotateFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "The dataset whose solutions get step labels. Rollouts are graded against each problem's reference answer." },
  segmentationMethod: { label: "Segmentation method", help: "Which segmentation of each solution is annotated: its chunks are the steps that get labels. Default self-segmented." },
  solutionIds: { advanced: true, label: "Solution ids", help: "Only these solutions, one id per line. Empty: the whole dataset." },
  limit: { label: "Solution limit", help: "At most this many solutions. Empty: no limit." },
  skipFilteredOut: {
    advanced: true,
    label: "Skip filtered-out solutions",
    help: "Leave out solutions whose problem a generate run's prompt filter marked (all samples right, or all wrong). On by default.",
  },
  policyEndpoint: { label: "Policy endpoint", help: "The endpoint of the policy that rolls out from each chunk prefix. The run records its model and URLs at launch." },
  policy: { label: "Policy snapshot", help: "The policy endpoint as it was at launch (model, URLs, prices), filled in by the server. Not set by hand." },
  promptTemplateId: {
    advanced: true,
    label: "Policy prompt",
    help: "The self-segmenting policy prompt the rollouts continue under; use the one the solutions were generated with. Default self-segmenting-policy@v2, the paper's own (Table 11).",
  },
  rollouts: { label: "Rollouts per prefix (M)", help: "M rollouts from each chunk prefix estimate its Q-value. Default 16, as in the paper; the adaptive strategy does not use it." },
  rolloutText: {
    advanced: true,
    label: "Rollout text",
    help: "full keeps each rollout's text for the inspector (default); answer-only keeps its answer, correctness, seed and tokens without the text. Q-values and labels are the same either way.",
  },
  temperature: { advanced: true, label: "Temperature", help: "The policy's sampling temperature for rollouts. Default 1, as in the paper." },
  maxTokens: { advanced: true, label: "Max tokens per rollout", help: "The generation limit of each rollout. Default 8192, as in the paper; a rollout cut off before its answer counts as a failure." },
  strategy: {
    label: "Rollout strategy",
    help: "fixed (default) draws M rollouts from every prefix and supports every rule; early-stop and first-error sample less and give Abs-Q only. adaptive samples in batches until the labels reach the target confidence.",
  },
  earlyStopBatch: { advanced: true, label: "Early-stop batch", help: "early-stop and first-error: rollouts drawn per request before they look again. Default 4." },
  adaptiveBatch: { advanced: true, label: "Adaptive batch", help: "adaptive: rollouts drawn from a prefix per round; every prefix starts with one batch. Default 4." },
  targetConfidence: {
    advanced: true,
    label: "Target confidence",
    help: "adaptive: a prefix gets another batch while a label resting on it is below this confidence, under any of the run's rules. Default 0.95.",
  },
  maxRollouts: { advanced: true, label: "Max rollouts per prefix", help: "adaptive: the most rollouts one prefix gets. Default 32." },
  tokenBudget: {
    advanced: true,
    label: "Token budget",
    help: "adaptive: generated tokens the run may spend. Once they are spent, solutions get no further rounds, and every prefix keeps at least its first batch; empty: no budget.",
  },
  labelConfidence: {
    advanced: true,
    label: "Label confidence",
    help: "How label confidence is computed: the prior of each prefix's Q (jeffreys by default, uniform, or a mixture with its weights and Beta parameters) and the floor ε (default 0.01). It changes confidences, never labels.",
  },
  confidencePriorFromRun: {
    advanced: true,
    label: "Fit the prior to run",
    help: "An annotate run (such as a small fixed pilot) whose rollout counts a mixture prior is fitted to at submission; the new run uses that prior. Empty: no fit.",
  },
  seed: {
    advanced: true,
    label: "Seed",
    help: "The run seed: each prefix's rollout seeds derive from it, the solution's id and the prefix length, so the same configuration gives the same rollouts. Default 0.",
  },
  absQEvidence: {
    advanced: true,
    label: "Abs-Q evidence",
    help: "own-prefix (default, the paper): a chunk is Positive iff a rollout of its own prefix succeeds. later-prefixes also counts later prefixes' successes and a right final answer, and is refused unless the run's own policy wrote every solution.",
  },
  labelRules: {
    label: "Label rules",
    help: "The rules the chunks are labelled by. Default all three at the paper's settings: Abs-Q, Rel-Ratio with γ = 0.7 and Rel-Effective with α = 0.8, n = 4.",
  },
  concurrency: { advanced: true, label: "Concurrency", help: "Solutions annotated at once, each sending its rollout requests together. Default 32." },
};
