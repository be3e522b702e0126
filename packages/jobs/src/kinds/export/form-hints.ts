import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the export configuration, for the launch form. */
export const exportFormHints: Readonly<Record<string, FieldHint>> = {
  export: {
    label: "Export",
    help: "What the export writes and the run it reads: a training set from a run's labels (verl, OpenRLHF or TRL GRPO prompts, or stepwise supervision for TRL's or OpenRLHF's process reward trainer; each with a requirements.txt pinning the trainer release its launch command is written for), a run's labels or predictions, or an offline run's batch requests for vllm run-batch.",
  },
};
