import { splitTags } from "@stepwiser/core";

/** What the run page's edit form holds: the name as typed (empty = the generated name), tags as a comma-separated line, notes as Markdown. */
export interface DescriptionDraft {
  name: string;
  tags: string;
  notes: string;
}

export interface StoredDescription {
  name: string;
  tags: readonly string[];
  notes: string;
}

/** The form's starting values for a run. */
export function draftOf(run: StoredDescription): DescriptionDraft {
  return { name: run.name, tags: run.tags.join(", "), notes: run.notes };
}

/**
 * The `run.update` fields a draft changes (nothing when it changes nothing): an
 * emptied name asks for the generated one back (null); tags are split on commas.
 * The server checks and normalises them and names the field of any error.
 */
export function descriptionChange(run: StoredDescription, draft: DescriptionDraft): { name?: string | null; tags?: string[]; notes?: string } {
  const change: { name?: string | null; tags?: string[]; notes?: string } = {};
  const name = draft.name.trim();
  if (name === "") change.name = null;
  else if (name !== run.name) change.name = name;
  const tags = splitTags(draft.tags);
  if (tags.join("\u0000") !== run.tags.join("\u0000")) change.tags = tags;
  if (draft.notes !== run.notes) change.notes = draft.notes;
  return change;
}
