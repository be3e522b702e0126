import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the judge configuration, for the launch form. */
export const judgeFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "The dataset whose solutions are judged." },
  segmentationMethod: { label: "Segmentation method", help: "Which segmentation of each solution is judged, chunk by chunk. Default self-segmented." },
  solutionIds: { advanced: true, label: "Solution ids", help: "Only these solutions, one id per line. Empty: the whole dataset." },
  limit: { label: "Solution limit", help: "At most this many solutions. Empty: no limit." },
  judgeEndpoint: { label: "Judge endpoint", help: "The endpoint of the judge model; it must declare the run's protocol. The run records its model and URLs at launch." },
  judge: { label: "Judge snapshot", help: "The judge endpoint as it was at launch (model, URLs, prices, protocols), filled in by the server. Not set by hand." },
  samples: {
    label: "Judge samples per chunk (K)",
    help: "K judge samples of each chunk, or of each solution for ThinkPRM, combined into one verdict (by majority vote for most protocols); every rationale is kept. Default 1; the paper's Maj@8 is 8.",
  },
  temperature: {
    advanced: true,
    label: "Judge temperature",
    help: "Empty: the protocol's default (stepwiser-chunk: 0 for one sample, 1 for several). More than one sample at 0 is refused: the samples would be identical.",
  },
  topP: { advanced: true, label: "Judge top-p", help: "Nucleus sampling. Empty: the protocol's default where its source sends one (GenPRM 0.95), otherwise none is sent." },
  maxTokens: { advanced: true, label: "Judge max tokens", help: "The judge's generation limit per output. Empty: the protocol's default (stepwiser-chunk 3096, thinkprm 8172, genprm 2048)." },
  seed: { advanced: true, label: "Seed", help: "The run seed: the judge requests' seeds derive from it and the solution's id (and the chunk's index where chunks are asked one by one). Default 0." },
  protocol: { label: "Judge protocol", help: "How the judge is asked and how its answer is read. Default stepwiser-chunk; a judge run takes the protocols that give a verdict per chunk." },
  protocolOptions: {
    label: "Protocol options",
    help: "The protocol's own settings: discriminative-prm's threshold (default 0.5) and variant, GenPRM's code execution (off by default) and sandbox limits. Other protocols ignore them.",
  },
  judgePromptTemplateId: { advanced: true, label: "Judge prompt", help: "stepwiser-chunk's prompt. Default stepwiser-judge@v2, the paper's own (Table 3); v1 is the studio's first wording." },
  tiePolicy: { advanced: true, label: "Tie policy", help: "The verdict of a chunk whose samples' votes tie. Default Negative." },
  stopAtFirstNegative: {
    advanced: true,
    label: "Stop at first Negative",
    help: "Stop judging a solution at its first chunk voted Negative, which is enough for a first-error prediction. Off by default: every chunk is judged.",
  },
  concurrency: { advanced: true, label: "Concurrency", help: "Solutions judged at once. Default 32." },
};
