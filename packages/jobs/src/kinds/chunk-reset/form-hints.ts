import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the chunk-reset configuration, for the launch form. */
export const chunkResetFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "The dataset whose problems are solved. Only problems with a reference answer are planned." },
  policyEndpoint: { label: "Policy endpoint", help: "The endpoint of the policy that writes the solution one chunk at a time. The run records its model and URLs at launch." },
  policy: { label: "Policy snapshot", help: "The policy endpoint as it was at launch (model, URLs, prices), filled in by the server. Not set by hand." },
  judgeEndpoint: { label: "Judge endpoint", help: "The endpoint of the judge that accepts or rejects each new chunk; it must declare the run's protocol." },
  judge: { label: "Judge snapshot", help: "The judge endpoint as it was at launch (model, URLs, prices, protocols), filled in by the server. Not set by hand." },
  protocol: { label: "Judge protocol", help: "How the judge is asked; its verdict on the new chunk accepts or rejects it. Default stepwiser-chunk; only stepwise protocols that judge each chunk." },
  protocolOptions: {
    label: "Protocol options",
    help: "The protocol's own settings: discriminative-prm's threshold (default 0.5) and variant, GenPRM's code execution (off by default) and sandbox limits. Other protocols ignore them.",
  },
  judgePromptTemplateId: { advanced: true, label: "Judge prompt", help: "stepwiser-chunk's prompt. Default stepwiser-judge@v2, the paper's own (Table 3); v1 is the studio's first wording." },
  policyPromptTemplateId: { advanced: true, label: "Policy prompt", help: "The self-segmenting policy prompt. Default self-segmenting-policy@v2, the paper's own (Table 11); v1 is the studio's first wording." },
  maxAttempts: { label: "Attempts per chunk", help: "The most attempts at each chunk position: a rejected chunk is regenerated from the same prefix until then. Default 5." },
  keep: { label: "When every attempt is rejected", help: "Which attempt the run keeps after the last rejection: the last one (default) or the one the judge scored best." },
  judgeSamples: { label: "Judge samples per chunk (K)", help: "K judge samples of each attempt; the chunk is accepted when more than half of them accept it. Default 1." },
  judgeTemperature: {
    advanced: true,
    label: "Judge temperature",
    help: "Empty: the protocol's default for that many samples (stepwiser-chunk: 0 for one, 1 for several). More than one sample at 0 is refused: the samples would be identical.",
  },
  judgeTopP: { advanced: true, label: "Judge top-p", help: "Nucleus sampling. Empty: the protocol's default where its source sends one (GenPRM 0.95), otherwise none is sent." },
  judgeMaxTokens: { advanced: true, label: "Judge max tokens", help: "The judge's generation limit per output. Empty: the protocol's default (stepwiser-chunk 3096, thinkprm 8172, genprm 2048)." },
  maxChunks: { advanced: true, label: "Max chunks per solution", help: "The most chunks the policy writes for one solution. Default 30." },
  temperature: { advanced: true, label: "Policy temperature", help: "The policy's sampling temperature. Default 1." },
  maxTokensPerChunk: { advanced: true, label: "Max tokens per chunk", help: "The policy's generation limit for one chunk. Default 1024." },
  seed: {
    advanced: true,
    label: "Seed",
    help: "The run seed: every policy and judge request's seed derives from it, the problem's text, the chunk position and the attempt; plain sampling beside the run uses the same first-attempt seeds. Default 0.",
  },
  limit: { label: "Problem limit", help: "At most this many problems with a reference answer, in id order. Empty: no limit." },
  concurrency: { advanced: true, label: "Concurrency", help: "Problems worked at once, each with its chunk-reset and plain-sampling episodes. Default 32." },
};
