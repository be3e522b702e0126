import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the generate configuration, for the launch form. */
export const generateFormHints: Readonly<Record<string, FieldHint>> = {
  datasetId: { label: "Dataset", help: "The dataset whose problems are solved. Only problems with a reference answer are planned." },
  problemIds: { advanced: true, label: "Problem ids", help: "Only these problems of the dataset, one id per line. Empty: every problem." },
  limit: { label: "Problem limit", help: "At most this many problems, in id order. Empty: no limit." },
  policyEndpoint: { label: "Policy endpoint", help: "The endpoint of the policy that writes the solutions. The run records its model and URLs at launch." },
  policy: { label: "Policy snapshot", help: "The policy endpoint as it was at launch (model, URLs, prices), filled in by the server. Not set by hand." },
  promptTemplateId: { advanced: true, label: "Policy prompt", help: "The self-segmenting policy prompt. Default self-segmenting-policy@v2, the paper's own (Table 11); v1 is the studio's first wording." },
  samplesPerProblem: { label: "Solutions per problem (N)", help: "N solutions per problem, drawn by one request with n = N. Default 16, as in the paper." },
  temperature: { advanced: true, label: "Temperature", help: "The policy's sampling temperature. Default 1, as in the paper; several solutions at 0 would be identical and are refused." },
  maxTokens: { advanced: true, label: "Max tokens per solution", help: "The generation limit of each solution. Default 8192, as in the paper; a solution cut off by it has no boxed answer and counts as wrong." },
  seed: { advanced: true, label: "Seed", help: "The run seed: sample i of a problem has a seed derived from it and the problem's text, plus i, so the same configuration gives the same solutions. Default 0." },
  filterMixed: {
    label: "Prompt filter",
    help: "The paper's prompt filter: a problem whose N answers are all right or all wrong is still stored but marked filtered out, and annotate runs leave it out. On by default; it needs N of at least 2.",
  },
  outputDatasetName: { label: "Output dataset name", help: "Name of the dataset the run writes. Default: the input dataset's name followed by \"· generate\" and the run id." },
  concurrency: { advanced: true, label: "Concurrency", help: "Problems solved at once, each one request with n = N. Default 32." },
};
