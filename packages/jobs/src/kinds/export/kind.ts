import type { z } from "zod";
import type { WholeRunKind } from "../../runs/run-kind";
import { exportConfigSchema, type ExportSpec } from "./export-spec";
import { exportFormHints } from "./form-hints";
import { executeExport } from "./handle";
import { exportSummarySchema } from "./summary";

/** An export: files written from a run (training set, labels, predictions, batch requests) into stored files at once. */
export const exportKind: WholeRunKind<{ export: ExportSpec }, z.output<typeof exportSummarySchema>> = {
  kind: "export",
  execution: "whole",
  queue: "export",
  submitSchema: exportConfigSchema,
  storedSchema: exportConfigSchema,
  summarySchema: exportSummarySchema,
  formHints: exportFormHints,
  endpoints: () => [],
  facts: (config) => [config.export.kind],
  execute: (db, runId, options) => executeExport(db, runId, options.runs),
};
