import { z } from "zod";

/** Longest run name, in characters. */
export const RUN_NAME_MAX = 120;
/** Longest run notes, in characters. */
export const RUN_NOTES_MAX = 20_000;
/** Most tags on one run, and the longest tag. */
export const RUN_TAGS_MAX = 20;
export const RUN_TAG_MAX = 40;

/** A tag starts with a letter or digit and holds letters, digits, spaces and `. _ - : / +`; no commas, so a list of tags reads back. */
const TAG_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} ._:/+-]*$/u;

export const runNameSchema = z
  .string()
  .transform((name) => name.trim().replace(/\s+/g, " "))
  .pipe(z.string().min(1, "a run name cannot be empty").max(RUN_NAME_MAX, `a run name has at most ${RUN_NAME_MAX} characters`));

export const runNotesSchema = z.string().max(RUN_NOTES_MAX, `run notes have at most ${RUN_NOTES_MAX.toLocaleString("en-US")} characters`);

export const runTagSchema = z
  .string()
  .transform((tag) => tag.trim().replace(/\s+/g, " "))
  .pipe(
    z
      .string()
      .min(1, "a tag cannot be empty")
      .max(RUN_TAG_MAX, `a tag has at most ${RUN_TAG_MAX} characters`)
      .regex(TAG_PATTERN, "a tag starts with a letter or digit and holds only letters, digits, spaces and . _ - : / +"),
  );

/** Tags as stored: trimmed, the first of case-insensitive duplicates kept, in the order given. */
export const runTagsSchema = z
  .array(runTagSchema)
  .transform((tags) => {
    const seen = new Set<string>();
    return tags.filter((tag) => {
      const key = tag.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  })
  .pipe(z.array(z.string()).max(RUN_TAGS_MAX, `a run has at most ${RUN_TAGS_MAX} tags`));

/** What researchers set on a run besides its config: at launch, all optional; a missing name is generated. */
export const runDescriptionSchema = z.object({
  name: runNameSchema.optional(),
  notes: runNotesSchema.optional(),
  tags: runTagsSchema.optional(),
});
export type RunDescription = z.output<typeof runDescriptionSchema>;

/** Splits a comma-separated tag list ("baseline, paper table 2") as the CLI and forms take it. */
export function splitTags(text: string): string[] {
  return text
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}
