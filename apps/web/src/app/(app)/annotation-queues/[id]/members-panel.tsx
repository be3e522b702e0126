"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, CardTitle, ErrorAlert, Field, Select } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

type Member = RouterOutputs["annotationQueue"]["queue"]["members"][number];

/**
 * Who may work this queue. Annotators see only the queues they are members of;
 * researchers and admins work any queue without being listed here.
 */
export function MembersPanel({ queueId, members }: { queueId: string; members: Member[] }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [chosen, setChosen] = useState("");
  const candidates = useQuery(trpc.annotationQueue.annotatorCandidates.queryOptions({}));
  const refresh = () => client.invalidateQueries({ queryKey: trpc.annotationQueue.queue.queryKey({ queueId }) });
  const add = useMutation(trpc.annotationQueue.addMembers.mutationOptions({ onSuccess: async () => { setChosen(""); await refresh(); } }));
  const remove = useMutation(trpc.annotationQueue.removeMember.mutationOptions({ onSuccess: refresh }));
  const memberIds = new Set(members.map((m) => m.userId));
  const addable = (candidates.data ?? []).filter((user) => !memberIds.has(user.id));

  return (
    <Card as="section" aria-labelledby="members-heading" className="space-y-3 text-sm" data-testid="members-panel">
      <CardTitle id="members-heading" className="text-slate-700">
        Members
      </CardTitle>
      <p className="text-slate-600">Annotators see and work only the queues they are members of. Removing someone ends their current lease; their submitted labels stay.</p>
      {members.length === 0 ? (
        <p className="text-slate-500">No annotators yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {members.map((member) => (
            <li key={member.userId} data-testid="queue-member" className="flex flex-wrap items-center gap-2 py-1.5">
              <span className="font-medium">{member.name}</span>
              <span className="text-slate-500">{member.email}</span>
              <span className="text-xs text-slate-500">
                added {new Date(member.addedAt).toLocaleDateString()}
                {member.addedByName ? ` by ${member.addedByName}` : ""}
              </span>
              <Button size="sm" onClick={() => remove.mutate({ queueId, userId: member.userId })} disabled={remove.isPending} className="ml-auto" aria-label={`Remove ${member.email}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen) add.mutate({ queueId, userIds: [chosen] });
        }}
      >
        <Field label="Add an annotator">
          <Select
            value={chosen}
            onChange={(event) => setChosen(event.target.value)}
            name="member"
            placeholder={addable.length ? "Choose…" : "No other annotator accounts"}
            options={addable.map((user) => [user.id, `${user.name} (${user.email})`] as const)}
          />
        </Field>
        <Button type="submit" variant="primary" disabled={!chosen || add.isPending}>
          Add
        </Button>
      </form>
      {candidates.error && <ErrorAlert>{errorMessage(candidates.error)}</ErrorAlert>}
      {(add.error ?? remove.error) && <ErrorAlert>{errorMessage((add.error ?? remove.error)!)}</ErrorAlert>}
    </Card>
  );
}
