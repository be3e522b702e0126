"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, Input, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { BlindChoice, blindFields } from "../blind-choice";

type Queue = RouterOutputs["annotationQueue"]["queue"];

/**
 * Researchers change how the queue is worked; every change lands in the audit
 * log with before and after. Turning blind review off asks for a reason.
 */
export function QueueSettings({ queue }: { queue: Queue }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const update = useMutation(trpc.annotationQueue.updateQueue.mutationOptions({ onSuccess: () => client.invalidateQueries({ queryKey: trpc.annotationQueue.queue.queryKey({ queueId: queue.id }) }) }));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    update.mutate({
      queueId: queue.id,
      instructions: String(form.get("instructions") ?? ""),
      annotatorsPerItem: Number(form.get("annotatorsPerItem")),
      leaseSeconds: Number(form.get("leaseMinutes")) * 60,
      ...blindFields(form),
    });
  };
  return (
    <Card as="details" className="text-sm">
      <summary className="cursor-pointer font-semibold text-slate-700">Settings</summary>
      <form key={`${queue.annotatorsPerItem}-${queue.leaseSeconds}-${queue.blind}`} onSubmit={onSubmit} className="mt-3 space-y-3">
        <Field label="Instructions">
          <Textarea name="instructions" rows={4} defaultValue={queue.instructions} />
        </Field>
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Annotators per item (k)">
            <Input name="annotatorsPerItem" type="number" min={1} max={10} defaultValue={queue.annotatorsPerItem} />
          </Field>
          <Field label="Lease (minutes)">
            <Input name="leaseMinutes" type="number" min={1} max={1440} defaultValue={Math.max(1, Math.round(queue.leaseSeconds / 60))} />
          </Field>
        </div>
        <BlindChoice initiallyBlind={queue.blind} />
        {update.error && <ErrorAlert>{errorMessage(update.error)}</ErrorAlert>}
        <div className="flex gap-2">
          <Button type="submit" variant="primary" disabled={update.isPending}>
            Save
          </Button>
          <Button disabled={update.isPending} onClick={() => update.mutate({ queueId: queue.id, archived: !queue.archivedAt })}>
            {queue.archivedAt ? "Reopen the queue" : "Archive the queue"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
