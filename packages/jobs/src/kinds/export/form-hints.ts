import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the export configuration, for the launch form. */
export const exportFormHints: Readonly<Record<string, FieldHint>> = {
  export: {
    label: "Export",
    help: "What the export writes and the run it reads: a training set from a run's labels, a run's labels or predictions, or an offline run's batch requests for vllm run-batch.",
  },
};
