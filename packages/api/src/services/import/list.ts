import type { Prisma } from "@stepwiser/db";
import { readRunSummary, tryReadRunConfig } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "../run/summary";

const importRunSelect = {
  ...runSummarySelect,
  summary: true,
  inputFile: { select: { id: true, fileName: true, sizeBytes: true } },
  dataset: { select: { id: true, name: true } },
} satisfies Prisma.RunSelect;

/** Recent import runs, newest first, with the file they read and the dataset they wrote to. */
export async function listImports({ db, input }: ServiceArgs<{ limit: number }>) {
  const runs = await db.run.findMany({ where: { kind: "import" }, orderBy: { createdAt: "desc" }, take: input.limit, select: importRunSelect });
  return runs.map(({ summary, inputFile, dataset, ...run }) => {
    const stored = tryReadRunConfig({ ...run, kind: "import" });
    return {
      ...toRunSummary(run),
      format: stored?.format ?? null,
      // The upload may have been removed since; the config snapshot keeps its name.
      fileName: inputFile?.fileName ?? stored?.fileName ?? null,
      sizeBytes: inputFile ? Number(inputFile.sizeBytes) : null,
      summary: readRunSummary({ kind: "import", summary }),
      dataset,
    };
  });
}
