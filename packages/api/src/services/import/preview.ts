import { InputError, isMappedImportFormat, previewImport, previewOutcomes, type FieldMapping, type ImportedSolution, type ImportFormat, type ImportReadOptions } from "@stepwiser/core";
import { parquetImportOutcomes, readStoredFile, storedFileBuffer } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

export interface ImportPreviewRequest {
  fileId: string;
  format: ImportFormat;
  subset?: string;
  generator?: string;
  mapping?: FieldMapping;
}

/** Records a preview shows: enough to spot a wrong mapping, few enough to read only the file's head. */
export const PREVIEW_RECORDS = 20;
const PROBLEM_CHARS = 300;
const STEP_CHARS = 200;
const SHOWN_STEPS = 3;

/** Cuts at a code point boundary, so an astral symbol at the edge is not split into a lone surrogate. */
function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

const labelled = (values: readonly unknown[] | null) => values?.filter((v) => v !== null).length ?? 0;

/** What the preview table needs from a record: the texts cut short, the labels counted. */
function previewOf(solution: ImportedSolution) {
  return {
    externalId: solution.externalId,
    subset: solution.subset,
    generator: solution.generator,
    problem: excerpt(solution.problem, PROBLEM_CHARS),
    steps: solution.steps.length,
    firstSteps: solution.steps.slice(0, SHOWN_STEPS).map((step) => excerpt(step, STEP_CHARS)),
    /** Steps carrying each kind of source label. */
    labels: {
      ratings: solution.ratings?.filter((r) => r.rating !== null).length ?? 0,
      hard: labelled(solution.hardLabels),
      soft: labelled(solution.softLabels),
    },
    firstErrorIndex: solution.firstErrorIndex,
    finalAnswerCorrect: solution.finalAnswerCorrect,
  };
}

export type ImportPreviewSolution = ReturnType<typeof previewOf>;

/**
 * The first records of an uploaded file as the import would read them, each a
 * solution (with the quirks its reader accepted), a record the dataset allows
 * that holds nothing to import, or the error that would stop the import. Only the file's head is
 * read: the reader stops pulling parts (or, for Parquet, row groups) once it
 * has its rows.
 */
export async function previewImportFile({ db, input }: ServiceArgs<ImportPreviewRequest>) {
  const file = await db.storedFile.findUnique({
    where: { id: input.fileId },
    select: { id: true, fileName: true, purpose: true, completedAt: true, sizeBytes: true },
  });
  if (!file || file.purpose !== "upload") throw new InputError(`no uploaded file ${input.fileId}`, { field: "fileId" });
  if (!file.completedAt) throw new InputError(`the upload of ${file.fileName} has not finished`, { field: "fileId" });
  const options: ImportReadOptions = {
    file: file.fileName,
    subset: input.subset,
    generator: input.generator,
    mapping: isMappedImportFormat(input.format) ? input.mapping : undefined,
  };
  const { rows } =
    input.format === "parquet"
      ? await previewOutcomes(parquetImportOutcomes(storedFileBuffer(db, file.id, Number(file.sizeBytes)), options), PREVIEW_RECORDS)
      : await previewImport(input.format, readStoredFile(db, file.id), options, PREVIEW_RECORDS);
  return {
    fileName: file.fileName,
    rows: rows.map((row) => ({
      line: row.line,
      solution: row.solution ? previewOf(row.solution) : null,
      error: row.error ?? null,
      /** Why a record the dataset allows holds nothing to import (it is left out under either policy). */
      ignored: row.ignored ?? null,
      /** Departures from the format's documented layout the reader accepted (docs/DOMAIN.md). */
      quirks: row.quirks ?? [],
    })),
  };
}
