"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "~/components/ui";
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
    <section aria-labelledby="members-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm" data-testid="members-panel">
      <h2 id="members-heading" className="font-semibold text-slate-700">
        Members
      </h2>
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
              <button
                type="button"
                onClick={() => remove.mutate({ queueId, userId: member.userId })}
                disabled={remove.isPending}
                className="ml-auto rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-50"
                aria-label={`Remove ${member.email}`}
              >
                Remove
              </button>
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
        <label className="block">
          <span className="text-slate-700">Add an annotator</span>
          <select value={chosen} onChange={(event) => setChosen(event.target.value)} className="mt-1 block rounded border border-slate-300 bg-white px-2 py-1" name="member">
            <option value="">{addable.length ? "Choose…" : "No other annotator accounts"}</option>
            {addable.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name} ({user.email})
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!chosen || add.isPending} className="rounded bg-blue-600 px-3 py-1.5 font-medium text-white hover:bg-blue-700 disabled:opacity-50">
          Add
        </button>
      </form>
      {candidates.error && <ErrorAlert>{errorMessage(candidates.error)}</ErrorAlert>}
      {(add.error ?? remove.error) && <ErrorAlert>{errorMessage((add.error ?? remove.error)!)}</ErrorAlert>}
    </section>
  );
}
