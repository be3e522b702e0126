"use client";

import { ROLES, type UserRole } from "@stepwiser/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useSessionUser } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

export default function UsersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useSessionUser();
  const users = useQuery(trpc.user.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.user.list.queryKey() });
  const setRole = useMutation(trpc.user.setRole.mutationOptions({ onSuccess: refresh }));
  const create = useMutation(trpc.user.create.mutationOptions({ onSuccess: refresh }));
  const [created, setCreated] = useState<string | null>(null);

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
      {users.data && (
        <table className="w-full border-collapse rounded-lg bg-white text-sm shadow-sm">
          <thead className="bg-slate-100 text-left text-slate-600">
            <tr>
              <th className="px-3 py-2">Email</th>
              <th className="px-3 py-2">Name</th>
              <th className="px-3 py-2">Role</th>
              <th className="px-3 py-2">Since</th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id} className="border-t border-slate-100">
                <td className="px-3 py-2">{u.email}</td>
                <td className="px-3 py-2">{u.name}</td>
                <td className="px-3 py-2">
                  <select
                    aria-label={`Role of ${u.email}`}
                    className="rounded border border-slate-300 px-2 py-1"
                    value={u.role}
                    disabled={u.id === me.id || setRole.isPending}
                    onChange={(e) => setRole.mutate({ userId: u.id, role: e.target.value as UserRole })}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="px-3 py-2 text-slate-600">{u.createdAt.toLocaleDateString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <form onSubmit={onCreate} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
        <h2 className="font-semibold">Add a user</h2>
        <div className="grid gap-3 sm:grid-cols-2">
          <label className="block">
            Email
            <input name="email" type="email" required className="mt-1 block w-full rounded border border-slate-300 px-2 py-1" />
          </label>
          <label className="block">
            Name
            <input name="name" type="text" required className="mt-1 block w-full rounded border border-slate-300 px-2 py-1" />
          </label>
          <label className="block">
            Role
            <select name="role" defaultValue="viewer" className="mt-1 block w-full rounded border border-slate-300 px-2 py-1">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label className="block">
            Initial password (8+ characters)
            <input
              name="password"
              type="password"
              minLength={8}
              required
              autoComplete="new-password"
              className="mt-1 block w-full rounded border border-slate-300 px-2 py-1"
            />
          </label>
        </div>
        <button type="submit" disabled={create.isPending} className="rounded bg-slate-900 px-3 py-1.5 font-medium text-white">
          Add user
        </button>
        {create.error && <ErrorAlert>{errorMessage(create.error)}</ErrorAlert>}
        {created && !create.error && <p className="text-green-800">Added {created}.</p>}
      </form>
    </div>
  );
}
