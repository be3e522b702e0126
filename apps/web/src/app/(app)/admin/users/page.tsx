"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { ROLES, type UserRole } from "@stepwiser/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, CardTitle, DataTable, dataColumns, ErrorAlert, Field, Input, Select, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useSessionUser } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

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
  const [created, setCreated] = useState<string | null>(null);
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
    column.accessor("createdAt", { header: "Since", cell: (c) => c.getValue().toLocaleDateString(), meta: { className: "text-slate-600" } }),
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
    <div className="max-w-4xl space-y-6">
      <h1 className="text-xl font-semibold">Users</h1>
      {users.error && <ErrorAlert>{errorMessage(users.error)}</ErrorAlert>}
      {setRole.error && <ErrorAlert>{errorMessage(setRole.error)}</ErrorAlert>}
      {users.data && <DataTable data={users.data} columns={columns} getRowId={(u) => u.id} />}

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
