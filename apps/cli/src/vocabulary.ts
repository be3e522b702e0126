/**
 * The names the command line's flags accept that the jobs layer defines (run
 * kinds, export formats, duplicate policies), copied here so that parsing a
 * command's flags loads no database client: remote mode (STEPWISER_URL) parses
 * the same flags with the same messages and never opens a database. A test
 * (apps/cli/test/vocabulary.test.ts) checks every list against its source.
 */

/** The kinds `run <kind>` launches (the engine's unit kinds), as `Run.kind` stores them. */
export const LAUNCHABLE_RUN_KINDS = ["generate", "segment", "annotate", "judge", "benchmark", "chunk_reset", "best_of_n"] as const;

/** The kinds a run can be created for offline execution (`--offline`, batch export/import). */
export const OFFLINE_RUN_KINDS = ["annotate", "judge"] as const;

export const TRAINING_SET_FORMATS = ["verl", "openrlhf", "trl", "trl-prm", "openrlhf-prm"] as const;
export type TrainingSetFormat = (typeof TRAINING_SET_FORMATS)[number];

/** The training-set formats whose rows are whole solutions (one label per chunk). */
export const SOLUTION_FORMATS: readonly TrainingSetFormat[] = ["trl-prm", "openrlhf-prm"];

export const SFT_FORMATS = ["chat-jsonl", "trl-sft", "verl-sft"] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

export const DUPLICATE_POLICIES = ["skip", "replace"] as const;

/** Every run kind (`run list --kind`), as `Run.kind` stores it. */
export const RUN_KINDS = ["import", "generate", "segment", "annotate", "judge", "benchmark", "chunk_reset", "best_of_n", "export"] as const;

/** Every run status (`run list --status`). */
export const RUN_STATUSES = ["queued", "running", "completed", "completed_with_failures", "failed", "cancelled"] as const;

/** The statuses a run ends in: following it stops there. */
export const TERMINAL_RUN_STATUSES: readonly string[] = ["completed", "completed_with_failures", "failed", "cancelled"];
