import { fieldMappingSchema, IMPORT_FORMATS } from "@stepwiser/core";
import { z } from "zod";
import { previewImportFile } from "../../services/import/preview";
import { researchManageProcedure } from "../../trpc";

export const previewImportInput = z.object({
  fileId: z.string().min(1),
  format: z.enum(IMPORT_FORMATS),
  subset: z.string().trim().min(1).max(100).optional(),
  generator: z.string().trim().min(1).max(200).optional(),
  mapping: fieldMappingSchema.optional(),
});

/** The first records of an uploaded file as the import would read them, each a solution or the error that would stop the import. */
export const preview = researchManageProcedure.input(previewImportInput).query(({ ctx, input }) => previewImportFile({ ...ctx, input }));
