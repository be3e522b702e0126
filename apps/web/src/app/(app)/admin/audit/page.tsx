"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, CardTitle, DataTable, dataColumns, ErrorAlert, Field, Input, Pager, Select, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { auditFieldChanges } from "./audit-changes";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];
type Action = RouterOutputs["audit"]["actions"][number]["action"];

const PAGE_SIZE = 50;
const column = dataColumns<Entry>();

const columns: DataColumn<Entry>[] = [
  column.accessor("createdAt", { header: "When", cell: (c) => c.getValue().toLocaleString(), meta: { className: "whitespace-nowrap text-slate-600" } }),
  column.accessor("label", { header: "Action", cell: ({ row: { original: e } }) => <span title={e.action}>{e.label}</span> }),
  column.accessor("entityId", {
    header: "Entity",
    cell: ({ row: { original: e } }) => (
      <span className="font-mono text-xs">
        {e.entityType} {e.entityId}
      </span>
    ),
  }),
  column.accessor("actor", { header: "By", cell: (c) => c.getValue()?.email ?? "system" }),
];

/** Each changed field on its own line, before → after; values are shown as text. */
function EntryChanges({ entry }: { entry: Entry }) {
  const changes = auditFieldChanges(entry.before, entry.after);
  if (changes.length === 0) return <p className="text-xs text-slate-500">No fields recorded.</p>;
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
      {changes.map((c) => (
        <div key={c.field} className="contents">
          <dt className="font-mono text-slate-600">{c.field}</dt>
          <dd className="font-mono break-all">
            {c.before !== null && <span className="text-rose-700 line-through">{c.before}</span>}
            {c.before !== null && c.after !== null && " → "}
            {c.after !== null && <span className="text-emerald-800">{c.after}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The audit log (admins): every recorded change, newest first, filtered by
 * action (the actions of the `AuditEvent` union) and entity id, with what
 * each change set, field by field.
 */
export default function AuditLogPage() {
  const trpc = useTRPC();
  const [action, setAction] = useState<Action | "">("");
  const [entityId, setEntityId] = useState("");
  // The cursor of each page seen so far: page n reads from cursors[n - 1].
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const page = cursors.length;
  const actions = useQuery(trpc.audit.actions.queryOptions());
  const list = useQuery({
    ...trpc.audit.list.queryOptions({ action: action || undefined, entityId: entityId.trim() || undefined, cursor: cursors[page - 1], limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const restart = () => setCursors([undefined]);

  return (
    <main className="mx-auto max-w-7xl space-y-4 px-4 py-6 sm:px-6">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <Card>
        <CardTitle>Filter</CardTitle>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Action">
            <Select
              value={action}
              onChange={(e) => {
                setAction(e.target.value as Action | "");
                restart();
              }}
              placeholder="Every action"
              options={(actions.data ?? []).map((a) => [a.action, a.label] as const)}
            />
          </Field>
          <Field label="Entity id">
            <Input
              value={entityId}
              onChange={(e) => {
                setEntityId(e.target.value);
                restart();
              }}
              placeholder="a run, dataset, queue, user… id"
            />
          </Field>
        </div>
      </Card>
      {list.error && <ErrorAlert>{errorMessage(list.error)}</ErrorAlert>}
      <DataTable
        data={list.data?.entries ?? []}
        columns={columns}
        getRowId={(e) => e.id}
        renderDetail={(e) => <EntryChanges entry={e} />}
        empty={list.isPending ? "Loading…" : "No entries."}
        testId="audit-log"
      />
      <Pager
        page={page}
        pageCount={null}
        hasNext={list.data?.nextCursor != null}
        onPage={(next) => setCursors((seen) => (next > seen.length ? [...seen, list.data?.nextCursor ?? undefined] : seen.slice(0, next)))}
        testId="audit-pager"
      />
    </main>
  );
}
