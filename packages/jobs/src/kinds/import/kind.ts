import type { z } from "zod";
import type { WholeRunKind } from "../../runs/run-kind";
import { importFormHints } from "./form-hints";
import { executeImport } from "./handle";
import { importRunConfigSchema, importSubmitConfigSchema, type ImportRunConfig } from "./options";
import { importSummarySchema } from "./summary";

/**
 * An import: one file read through its format's reader and written in one
 * transaction (all or nothing), or an OpenAI batch output stored for the
 * offline run it answers. Sends no model requests.
 */
export const importKind: WholeRunKind<ImportRunConfig, z.output<typeof importSummarySchema>> = {
  kind: "import",
  execution: "whole",
  queue: "import",
  submitSchema: importSubmitConfigSchema,
  storedSchema: importRunConfigSchema,
  summarySchema: importSummarySchema,
  formHints: importFormHints,
  endpoints: () => [],
  facts: (config) => [config.format, config.fileName].filter((part) => part !== ""),
  execute: (db, runId, options) => executeImport(db, runId, options),
};
