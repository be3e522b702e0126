import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the segment configuration, for the launch form. */
export const segmentFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "The dataset whose solutions are cut into chunks." },
  method: {
    label: "Segmentation method",
    help: "blank-line and step-markers are rules; llm-segmenter asks a model to tag the chunks. A solution that already has a segmentation of this method keeps it and is counted as skipped.",
  },
  sourceMethod: {
    advanced: true,
    label: "Only solutions segmented by",
    help: "Only solutions that already have a segmentation of this method (e.g. self-segmented), so methods are compared on the same solutions. Empty: every solution.",
  },
  solutionIds: { advanced: true, label: "Solution ids", help: "Only these solutions, one id per line. Empty: the whole dataset." },
  limit: { label: "Solution limit", help: "At most this many solutions, in id order. Empty: no limit." },
  segmenterEndpoint: { label: "Segmenter endpoint", help: "The endpoint of the model that tags the chunks. Needed by llm-segmenter, refused with the rule methods." },
  segmenter: { label: "Segmenter snapshot", help: "The segmenter endpoint as it was at launch (model, URLs, prices), filled in by the server. Not set by hand." },
  promptTemplateId: { advanced: true, label: "Segmenter prompt", help: "The segmenter's prompt, chunk-segmenter@v1, the only version." },
  temperature: { advanced: true, label: "Temperature", help: "The segmenter's sampling temperature (llm-segmenter). Default 0: the segmenter should copy the solution, not write a new one." },
  attempts: {
    advanced: true,
    label: "Attempts per solution",
    help: "llm-segmenter: a solution is segmented up to this many times, each attempt with its own seed from the run seed, until an answer reconstructs it exactly; an answer that does not is never repaired. Default 8, the paper's.",
  },
  retryTemperature: {
    advanced: true,
    label: "Retry temperature",
    help: "llm-segmenter: the temperature of attempts 2 and later (the first uses Temperature). Default 0.7; a retry at 0 would repeat the first answer. The paper does not state it.",
  },
  maxTokens: {
    advanced: true,
    label: "Max tokens",
    help: "The segmenter's generation limit (llm-segmenter). Default 8192; the answer repeats the whole solution with tags, and a cut-off answer cannot be matched to it, so no chunk is stored.",
  },
  seed: { advanced: true, label: "Seed", help: "The run seed: each solution's segmenter request has a seed derived from it and the solution's id. Default 0." },
  concurrency: { advanced: true, label: "Concurrency", help: "Solutions segmented at once. Default 32." },
};
