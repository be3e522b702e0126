import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the best-of-n configuration, for the launch form. */
export const bestOfNFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "A dataset with several solutions per problem, such as a generate run's output." },
  segmentationMethod: { label: "Segmentation method", help: "Which segmentation of each candidate solution is judged, chunk by chunk. Default self-segmented." },
  judgeEndpoint: { label: "Judge endpoint", help: "The endpoint of the judge model; it must declare the run's protocol. The run records its model and URLs at launch." },
  judge: { label: "Judge snapshot", help: "The judge endpoint as it was at launch (model, URLs, prices, protocols), filled in by the server. Not set by hand." },
  samples: {
    label: "Judge samples per chunk (K)",
    help: "K judge samples of each chunk, or of each solution or match where the protocol judges whole solutions. A chunk's score is their mean score, or the share of Positive verdicts where the protocol scores none; default 1.",
  },
  temperature: {
    advanced: true,
    label: "Judge temperature",
    help: "Empty: the protocol's default (stepwiser-chunk: 0 for one sample, 1 for several). More than one sample at 0 is refused: the samples would be identical.",
  },
  topP: { advanced: true, label: "Judge top-p", help: "Nucleus sampling. Empty: the protocol's default where its source sends one (GenPRM 0.95), otherwise none is sent." },
  maxTokens: {
    advanced: true,
    label: "Judge max tokens",
    help: "The judge's generation limit per output. Empty: the protocol's default (stepwiser-chunk 3096, thinkprm 8172, genprm and the outcome models 2048).",
  },
  seed: { advanced: true, label: "Seed", help: "The run seed: the judge requests' seeds and the random-pick baseline derive from it. Default 0." },
  protocol: {
    label: "Judge protocol",
    help: "How the judge is asked and how its answer is read, and so how a candidate is picked. Default stepwiser-chunk; every protocol but the ProcessBench critic.",
  },
  protocolOptions: {
    label: "Protocol options",
    help: "The protocol's own settings: discriminative-prm's threshold (default 0.5) and variant, GenPRM's code execution (off by default) and sandbox limits. Other protocols ignore them.",
  },
  judgePromptTemplateId: { advanced: true, label: "Judge prompt", help: "stepwiser-chunk's prompt. Default stepwiser-judge@v2, the paper's own (Table 3); v1 is the studio's first wording." },
  limit: { label: "Problem limit", help: "At most this many problems, in id order. Empty: no limit." },
  concurrency: { advanced: true, label: "Concurrency", help: "Problems judged at once. Default 32." },
};
