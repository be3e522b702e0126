import { access, stat } from "node:fs/promises";
import { DEFAULT_MAX_INVALID_SHARE, IMPORT_FORMATS, isMappedImportFormat, ON_INVALID_POLICIES, parseFieldMapping, type ImportFormat, type OnInvalidPolicy } from "@stepwiser/core";
import { parseFlags } from "../input/flags";
import { fromUserCwd } from "../paths";
import { UsageError } from "../usage-error";
import { DUPLICATE_POLICIES } from "../vocabulary";

/** `import`'s command line, read and checked: the same in local and remote mode. */
export interface ImportFlags {
  format: ImportFormat;
  /** The files as given (relative to the user's directory). */
  files: string[];
  name?: string;
  dataset?: string;
  subset?: string;
  generator?: string;
  mapping?: ReturnType<typeof parseFieldMapping>;
  /** --map as given, for the REST API (which reads it as the CLI does). */
  mapSpec?: string;
  duplicates: (typeof DUPLICATE_POLICIES)[number];
  deleteHumanLabels: boolean;
  policy: { onInvalid: OnInvalidPolicy; maxInvalidShare: number };
  preview: boolean;
  detach: boolean;
}

/** `--max-invalid-share`: a number from 0 to 1 (a share, not a percentage). */
function parseShare(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  const share = Number(given);
  if (given.trim() === "" || !Number.isFinite(share) || share < 0 || share > 1) {
    throw new UsageError(`--max-invalid-share must be a number from 0 to 1, e.g. 0.05 for 5 % (got "${given}")`);
  }
  return share;
}

/** `import <format> <file>... [flags]`'s arguments (after `import`); a bad or missing one is a usage error naming it. */
export function importFlagsOf(args: string[]): ImportFlags {
  const [format, ...rest] = args;
  if (!format || !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`import needs a format: ${IMPORT_FORMATS.join(", ")}${format ? ` (got "${format}")` : ""}`);
  }
  const { values, positionals } = parseFlags(`import ${format}`, {
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      dataset: { type: "string" },
      subset: { type: "string" },
      generator: { type: "string" },
      map: { type: "string" },
      duplicates: { type: "string", default: "skip" },
      "delete-human-labels": { type: "boolean", default: false },
      "on-invalid": { type: "string", default: "fail" },
      "max-invalid-share": { type: "string" },
      preview: { type: "boolean", default: false },
      detach: { type: "boolean", default: false },
    },
  });
  if (positionals.length === 0) throw new UsageError(`import ${format} needs at least one file`);
  if (values.name && positionals.length > 1) throw new UsageError("--name applies to a single file");
  if (values.name && values.dataset) throw new UsageError("give --name (a new dataset) or --dataset (an existing one), not both");
  if (!(DUPLICATE_POLICIES as readonly string[]).includes(values.duplicates)) {
    throw new UsageError(`--duplicates must be one of ${DUPLICATE_POLICIES.join(", ")} (got "${values.duplicates}")`);
  }
  if (values["delete-human-labels"] && values.duplicates !== "replace") {
    throw new UsageError("--delete-human-labels applies only with --duplicates replace (it deletes the human work on the solutions replaced)");
  }
  const onInvalid = values["on-invalid"];
  if (!(ON_INVALID_POLICIES as readonly string[]).includes(onInvalid)) {
    throw new UsageError(`--on-invalid must be one of ${ON_INVALID_POLICIES.join(", ")} (got "${onInvalid}")`);
  }
  const maxInvalidShare = parseShare(values["max-invalid-share"]);
  if (maxInvalidShare !== undefined && onInvalid !== "skip") throw new UsageError("--max-invalid-share applies only with --on-invalid skip");
  const mapped = isMappedImportFormat(format as ImportFormat);
  if (mapped && !values.map) throw new UsageError(`import ${format} needs --map, e.g. --map problem=question,steps=steps,labels=labels`);
  if (!mapped && values.map) throw new UsageError(`--map applies to jsonl and parquet imports only, not ${format}`);
  return {
    format: format as ImportFormat,
    files: positionals,
    name: values.name,
    dataset: values.dataset,
    subset: values.subset,
    generator: values.generator,
    mapping: values.map ? parseFieldMapping(values.map) : undefined,
    mapSpec: values.map,
    duplicates: values.duplicates as ImportFlags["duplicates"],
    deleteHumanLabels: values["delete-human-labels"],
    policy: { onInvalid: onInvalid as OnInvalidPolicy, maxInvalidShare: maxInvalidShare ?? DEFAULT_MAX_INVALID_SHARE },
    preview: values.preview,
    detach: values.detach,
  };
}

/** A file named on the command line, resolved from the user's directory: it must exist and not be a directory. */
export async function checkReadable(given: string): Promise<string> {
  const file = fromUserCwd(given);
  try {
    await access(file);
    if ((await stat(file)).isDirectory()) throw new UsageError(`cannot read ${given}: is a directory`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${given}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  return file;
}
