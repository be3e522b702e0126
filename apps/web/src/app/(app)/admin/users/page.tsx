"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { ROLES, type UserRole } from "@stepwiser/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, CardTitle, DataTable, dataColumns, ErrorAlert, Field, Input, Select, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useSessionUser } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { confirmationOf, disableRefusal } from "./account-actions";

type User = RouterOutputs["user"]["list"][number];

const column = dataColumns<User>();

export default function UsersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useSessionUser();
  const users = useQuery(trpc.user.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.user.list.queryKey() });
  const setRole = useMutation(trpc.user.setRole.mutationOptions({ onSuccess: refresh }));
  const create = useMutation(trpc.user.create.mutationOptions({ onSuccess: refresh }));
  const disable = useMutation(trpc.user.disable.mutationOptions({ onSuccess: refresh }));
  const enable = useMutation(trpc.user.enable.mutationOptions({ onSuccess: refresh }));
  const endSessions = useMutation(trpc.user.endSessions.mutationOptions({ onSuccess: refresh }));
  const [created, setCreated] = useState<string | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const accountError = disable.error ?? enable.error ?? endSessions.error;
  const pending = disable.isPending || enable.isPending || endSessions.isPending;

  function act(action: "disable" | "enable" | "endSessions", u: User) {
    if (!window.confirm(confirmationOf(action, u))) return;
    ({ disable, enable, endSessions })[action].mutate({ userId: u.id });
  }

  const roleOptions = ROLES.map((r) => [r, r] as const);
  const columns: DataColumn<User>[] = [
    column.accessor("email", { header: "Email" }),
    column.accessor("name", { header: "Name" }),
    column.accessor("role", {
      header: "Role",
      cell: ({ row: { original: u } }) => (
        <Select
          inline
          aria-label={`Role of ${u.email}`}
          value={u.role}
          disabled={u.id === me.id || setRole.isPending}
          onChange={(e) => setRole.mutate({ userId: u.id, role: e.target.value as UserRole })}
          options={roleOptions}
        />
      ),
    }),
    column.accessor("disabledAt", {
      header: "Status",
      cell: (c) => {
        const disabledAt = c.getValue();
        return disabledAt ? <Badge title={`Disabled ${disabledAt.toLocaleString()}`}>disabled</Badge> : "active";
      },
    }),
    column.accessor("activeSessions", { header: "Sessions", meta: { align: "right" } }),
    column.accessor("createdAt", { header: "Since", cell: (c) => c.getValue().toLocaleDateString(), meta: { className: "text-slate-600" } }),
    column.display({
      id: "actions",
      header: "",
      meta: { align: "right" },
      cell: ({ row: { original: u } }) => {
        const refusal = disableRefusal(u, me.id, users.data ?? []);
        return (
          <div className="flex justify-end gap-1">
            <Button size="sm" disabled={pending} onClick={() => setResetting(u)}>
              Reset password
            </Button>
            <Button size="sm" disabled={pending || u.activeSessions === 0} onClick={() => act("endSessions", u)}>
              End sessions
            </Button>
            {u.disabledAt ? (
              <Button size="sm" variant="accent" disabled={pending} onClick={() => act("enable", u)}>
                Enable
              </Button>
            ) : (
              <Button size="sm" variant="danger" disabled={pending || refusal !== null} title={refusal ?? undefined} onClick={() => act("disable", u)}>
                Disable
              </Button>
            )}
          </div>
        );
      },
    }),
  ];

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const email = String(form.get("email") ?? "");
    create.mutate(
      {
        email,
        name: String(form.get("name") ?? ""),
        role: String(form.get("role") ?? "viewer") as UserRole,
        password: String(form.get("password") ?? ""),
      },
      {
        onSuccess: () => {
          setCreated(email);
          formElement.reset();
        },
      },
    );
  }

  return (
    <div className="max-w-6xl space-y-6">
      <h1 className="text-xl font-semibold">Users</h1>
      {users.error && <ErrorAlert>{errorMessage(users.error)}</ErrorAlert>}
      {setRole.error && <ErrorAlert>{errorMessage(setRole.error)}</ErrorAlert>}
      {accountError && <ErrorAlert>{errorMessage(accountError)}</ErrorAlert>}
      {users.data && (
        <DataTable
          data={users.data}
          columns={columns}
          getRowId={(u) => u.id}
          rowAttributes={(u) => ({ className: u.disabledAt ? "text-slate-500" : undefined, "data-testid": "user-row" })}
        />
      )}
      {resetting && <ResetPassword key={resetting.id} user={resetting} onDone={() => setResetting(null)} onReset={() => void refresh()} />}

      <Card as="form" onSubmit={onCreate} className="space-y-3 text-sm">
        <CardTitle>Add a user</CardTitle>
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Email">
            <Input name="email" type="email" required />
          </Field>
          <Field label="Name">
            <Input name="name" type="text" required />
          </Field>
          <Field label="Role">
            <Select name="role" defaultValue="viewer" options={roleOptions} />
          </Field>
          <Field label="Initial password (8+ characters)">
            <Input name="password" type="password" minLength={8} required autoComplete="new-password" />
          </Field>
        </div>
        <Button type="submit" variant="dark" disabled={create.isPending}>
          Add user
        </Button>
        {create.error && <ErrorAlert>{errorMessage(create.error)}</ErrorAlert>}
        {created && !create.error && <p className="text-green-800">Added {created}.</p>}
      </Card>
    </div>
  );
}

/** Sets a new password for one account: the one typed, or a generated one shown here once. */
function ResetPassword({ user, onDone, onReset }: { user: User; onDone: () => void; onReset: () => void }) {
  const trpc = useTRPC();
  const reset = useMutation(trpc.user.resetPassword.mutationOptions({ onSuccess: onReset }));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get("password") ?? "");
    if (!window.confirm(confirmationOf("resetPassword", user))) return;
    reset.mutate({ userId: user.id, password: password === "" ? undefined : password });
  }

  return (
    <Card as="form" onSubmit={onSubmit} className="space-y-3 text-sm">
      <CardTitle>Reset the password of {user.email}</CardTitle>
      {reset.data ? (
        <div role="status" className="space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-amber-950">
          <p>
            Password set; {reset.data.sessionsEnded} session{reset.data.sessionsEnded === 1 ? "" : "s"} ended.
            {reset.data.generatedPassword && <span className="font-semibold"> Give them this password now: it will not be shown again.</span>}
          </p>
          {reset.data.generatedPassword && (
            <input
              readOnly
              value={reset.data.generatedPassword}
              aria-label={`New password of ${user.email}`}
              onFocus={(e) => e.currentTarget.select()}
              className="w-full rounded border border-amber-300 bg-white px-2 py-1 font-mono text-slate-900"
            />
          )}
          <Button onClick={onDone}>Done</Button>
        </div>
      ) : (
        <>
          <Field label="New password (8+ characters; leave empty to generate one)">
            <Input name="password" type="password" minLength={8} autoComplete="new-password" />
          </Field>
          <div className="flex gap-2">
            <Button type="submit" variant="dark" disabled={reset.isPending}>
              Set password
            </Button>
            <Button onClick={onDone}>Cancel</Button>
          </div>
        </>
      )}
      {reset.error && <ErrorAlert>{errorMessage(reset.error)}</ErrorAlert>}
    </Card>
  );
}
