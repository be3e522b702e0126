import { splitTags } from "@stepwiser/core";

/** The launch form's Name, Tags and Notes as `run.launch` takes them: empty fields are left out (a missing name is generated). */
export function launchDescription(typed: { name: string; tags: string; notes: string }): { name?: string; tags?: string[]; notes?: string } {
  const name = typed.name.trim();
  const tags = splitTags(typed.tags);
  return { ...(name ? { name } : {}), ...(tags.length ? { tags } : {}), ...(typed.notes.trim() ? { notes: typed.notes } : {}) };
}
