"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { RichText } from "~/components/rich-text";
import { Badge, Button, Card, ErrorAlert, Field, Input, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { descriptionChange, draftOf, type DescriptionDraft, type StoredDescription } from "./run-description-draft";

/**
 * A run's tags and notes under its heading, and for researchers an Edit button
 * opening its name, tags and notes inline (saved through `run.update`, audited).
 * Notes are Markdown shown through the sanitising rich-text renderer.
 */
export function RunDescription({ run }: { run: StoredDescription & { id: string } }) {
  const canEdit = useCan("research.manage");
  const [draft, setDraft] = useState<DescriptionDraft | null>(null);
  if (draft) return <DescriptionForm run={run} draft={draft} setDraft={setDraft} />;
  if (run.tags.length === 0 && run.notes.trim() === "" && !canEdit) return null;
  return (
    <section aria-label="Name, tags and notes" className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        {run.tags.length > 0 && (
          <ul className="flex flex-wrap gap-1" aria-label="Tags" data-testid="run-tags">
            {run.tags.map((tag) => (
              <li key={tag}>
                <Badge>{tag}</Badge>
              </li>
            ))}
          </ul>
        )}
        {canEdit && (
          <Button size="sm" onClick={() => setDraft(draftOf(run))} data-testid="edit-run-description">
            Edit name, tags and notes
          </Button>
        )}
      </div>
      {run.notes.trim() !== "" && (
        <Card padding="sm" data-testid="run-notes">
          <RichText text={run.notes} className="text-sm" />
        </Card>
      )}
    </section>
  );
}

function DescriptionForm({ run, draft, setDraft }: { run: StoredDescription & { id: string }; draft: DescriptionDraft; setDraft: (draft: DescriptionDraft | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [preview, setPreview] = useState(false);
  const save = useMutation(
    trpc.run.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.run.get.queryKey({ id: run.id }) });
        await queryClient.invalidateQueries({ queryKey: trpc.run.list.queryKey() });
        setDraft(null);
      },
    }),
  );
  const change = descriptionChange(run, draft);
  return (
    <Card
      as="form"
      aria-label="Edit name, tags and notes"
      className="space-y-3"
      onSubmit={(event: React.FormEvent) => {
        event.preventDefault();
        if (Object.keys(change).length === 0) setDraft(null);
        else save.mutate({ id: run.id, ...change });
      }}
    >
      <Field label="Name" hint="Empty: the name generated from the run's kind, model and parameters.">
        <Input value={draft.name} maxLength={120} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
      </Field>
      <Field label="Tags" hint="Comma-separated, e.g. baseline, paper-table-2.">
        <Input value={draft.tags} onChange={(e) => setDraft({ ...draft, tags: e.target.value })} />
      </Field>
      <div className="text-sm">
        <div className="flex items-center gap-3">
          <span className="text-slate-700">Notes (Markdown, LaTeX between $…$)</span>
          <Button variant="subtle" onClick={() => setPreview(!preview)} aria-pressed={preview}>
            {preview ? "Write" : "Preview"}
          </Button>
        </div>
        {preview ? (
          <Card padding="sm" className="mt-1 min-h-24" data-testid="notes-preview">
            {draft.notes.trim() ? <RichText text={draft.notes} className="text-sm" /> : <span className="text-slate-400">Nothing to preview.</span>}
          </Card>
        ) : (
          <Textarea aria-label="Notes" rows={6} value={draft.notes} onChange={(e) => setDraft({ ...draft, notes: e.target.value })} className="font-mono" />
        )}
      </div>
      {save.error && <ErrorAlert>{errorMessage(save.error)}</ErrorAlert>}
      <div className="flex gap-2">
        <Button type="submit" variant="dark" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        <Button onClick={() => setDraft(null)}>Cancel</Button>
      </div>
    </Card>
  );
}
