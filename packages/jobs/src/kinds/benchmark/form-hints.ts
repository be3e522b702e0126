import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the benchmark configuration, for the launch form. */
export const benchmarkFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "ProcessBench dataset", help: "A ProcessBench dataset; its solutions' source labels are the gold first errors." },
  protocol: { label: "Judge protocol", help: "How the judge is asked and how its answer is read; the prediction is the first step it calls wrong (-1 if none). Default stepwiser-chunk." },
  protocolOptions: {
    label: "Protocol options",
    help: "The protocol's own settings: discriminative-prm's threshold (default 0.5) and variant, GenPRM's code execution (off by default) and sandbox limits. Other protocols ignore them.",
  },
  judgePromptTemplateId: { advanced: true, label: "Judge prompt", help: "stepwiser-chunk's prompt. Default stepwiser-judge@v2, the paper's own (Table 3); v1 is the studio's first wording." },
  mode: { advanced: true, label: "Mode (superseded)", help: "The old name of the protocol, still read: chunk-judge is stepwiser-chunk, critic is processbench-critic. Give the protocol instead." },
  criticPromptTemplateId: {
    advanced: true,
    label: "Critic prompt",
    help: "processbench-critic's prompt and answer reading. Default processbench-critic@v2, the official ProcessBench template and scorer, so its F1s compare with published ones; v1 is the studio's own wording.",
  },
  segmentationMethod: { label: "Segmentation method", help: "Which segmentation's steps are judged. Default processbench-paragraphs, the dataset's own paragraphs." },
  judgeEndpoint: { label: "Judge endpoint", help: "The endpoint of the judge model; it must declare the run's protocol. The run records its model and URLs at launch." },
  judge: { label: "Judge snapshot", help: "The judge endpoint as it was at launch (model, URLs, prices, protocols), filled in by the server. Not set by hand." },
  samples: {
    label: "Judge samples (K)",
    help: "K judge samples of each step, or of each solution for the protocols that read a whole solution (the critic, ThinkPRM), combined into one prediction (by majority vote for most protocols). Default 1; the paper's Maj@8 is 8.",
  },
  temperature: {
    advanced: true,
    label: "Judge temperature",
    help: "Empty: the protocol's default (stepwiser-chunk and the critic: 0 for one sample, 1 for several). More than one sample at 0 is refused: the samples would be identical.",
  },
  topP: { advanced: true, label: "Judge top-p", help: "Nucleus sampling. Empty: the protocol's default where its source sends one (ProcessBench voting 0.9, GenPRM 0.95), otherwise none is sent." },
  maxTokens: {
    advanced: true,
    label: "Judge max tokens",
    help: "The judge's generation limit per output. Empty: the protocol's default (processbench-critic 8192, stepwiser-chunk 3096, thinkprm 8172, genprm 2048).",
  },
  seed: { advanced: true, label: "Seed", help: "The run seed: the judge requests' seeds derive from it and the solution's id (and the step's index where steps are asked one by one). Default 0." },
  tiePolicy: { advanced: true, label: "Tie policy", help: "The verdict of a step whose samples' votes tie. Default Negative." },
  stopAtFirstNegative: {
    advanced: true,
    label: "Stop at first Negative",
    help: "Stop judging a solution at its first step voted Negative; the predicted first error is the same. On by default.",
  },
  limit: { label: "Solution limit", help: "At most this many solutions, and only they are scored. Empty: the whole dataset." },
  bootstrap: { advanced: true, label: "Bootstrap", help: "Resamples and seed of the 95 % percentile-bootstrap intervals, as JSON. Default 1000 resamples, seed 0." },
  concurrency: { advanced: true, label: "Concurrency", help: "Solutions judged at once. Default 64." },
  scoring: {
    advanced: true,
    label: "Scoring",
    help: "Set at launch from the dataset: processbench (first-error F1 per subset) or, on a PRMBench import, prmbench (PRMScore over every step; every step is judged, so the run never stops at the first Negative).",
  },
};
