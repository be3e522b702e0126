"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

type TokenRow = RouterOutputs["token"]["list"][number];
type CreatedToken = RouterOutputs["token"]["create"];

const dateTime = (date: Date | null) => (date ? date.toLocaleString() : "—");

export function ApiTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.token.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.token.list.queryKey() });
  const create = useMutation(trpc.token.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.token.revoke.mutationOptions({ onSuccess: refresh }));
  // Held only in this component's state: the server cannot show the plaintext again.
  const [created, setCreated] = useState<CreatedToken | null>(null);

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const name = String(new FormData(formElement).get("name") ?? "");
    setCreated(null);
    create.mutate(
      { name },
      {
        onSuccess: (token) => {
          setCreated(token);
          formElement.reset();
        },
      },
    );
  }

  function onRevoke(token: TokenRow) {
    if (!window.confirm(`Revoke the token "${token.name}" (${token.prefix}…)? Scripts using it stop working at once; this cannot be undone.`)) return;
    if (created?.id === token.id) setCreated(null);
    revoke.mutate({ id: token.id });
  }

  return (
    <div className="space-y-6">
      <form onSubmit={onCreate} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
        <h2 className="font-semibold">New token</h2>
        <div className="flex flex-wrap items-end gap-3">
          <label className="block min-w-64 flex-1">
            Name (what will use it)
            <input
              name="name"
              type="text"
              required
              maxLength={100}
              placeholder="e.g. nightly label export"
              className="mt-1 block w-full rounded border border-slate-300 px-2 py-1"
            />
          </label>
          <button type="submit" disabled={create.isPending} className="rounded bg-slate-900 px-3 py-1.5 font-medium text-white disabled:opacity-50">
            Create token
          </button>
        </div>
        {create.error && <ErrorAlert>{errorMessage(create.error)}</ErrorAlert>}
        {created && <NewTokenNotice token={created} onDone={() => setCreated(null)} />}
      </form>

      {tokens.error && <ErrorAlert>{errorMessage(tokens.error)}</ErrorAlert>}
      {revoke.error && <ErrorAlert>{errorMessage(revoke.error)}</ErrorAlert>}
      {tokens.data?.length === 0 && <p className="text-sm text-slate-600">You have no API tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <div className="overflow-x-auto rounded-lg bg-white shadow-sm">
          <table className="w-full border-collapse text-sm">
            <thead className="bg-slate-100 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Token</th>
                <th className="px-3 py-2">Created</th>
                <th className="px-3 py-2">Last used</th>
                <th className="px-3 py-2" />
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id} data-testid="api-token-row" className={`border-t border-slate-100 ${token.revokedAt ? "text-slate-500" : ""}`}>
                  <td className="px-3 py-2 font-medium">{token.name}</td>
                  <td className="px-3 py-2 font-mono">{token.prefix}…</td>
                  <td className="px-3 py-2">{dateTime(token.createdAt)}</td>
                  <td className="px-3 py-2">{token.lastUsedAt ? dateTime(token.lastUsedAt) : "never"}</td>
                  <td className="px-3 py-2 text-right">
                    {token.revokedAt ? (
                      <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-600" title={`Revoked ${dateTime(token.revokedAt)}`}>
                        revoked
                      </span>
                    ) : (
                      <button
                        type="button"
                        disabled={revoke.isPending}
                        onClick={() => onRevoke(token)}
                        className="rounded border border-slate-300 px-2 py-1 text-red-700 hover:bg-red-50 disabled:opacity-50"
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function NewTokenNotice({ token, onDone }: { token: CreatedToken; onDone: () => void }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");

  async function onCopy() {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopy("copied");
    } catch {
      // The clipboard API needs a secure context (https or localhost); the field can still be selected by hand.
      setCopy("failed");
    }
  }

  return (
    <div role="status" data-testid="new-api-token" className="space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-amber-950">
      <p>
        <span className="font-semibold">Copy the token &ldquo;{token.name}&rdquo; now: it will not be shown again.</span> Only a hash of it is stored; if you lose it,
        revoke it and create another.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <input
          readOnly
          value={token.token}
          aria-label={`API token ${token.name}`}
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 rounded border border-amber-300 bg-white px-2 py-1 font-mono text-slate-900"
        />
        <button type="button" onClick={onCopy} className="rounded bg-slate-900 px-3 py-1 font-medium text-white">
          {copy === "copied" ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone} className="rounded border border-slate-300 bg-white px-3 py-1 text-slate-700 hover:bg-slate-100">
          Done
        </button>
      </div>
      {copy === "failed" && <p className="text-sm">The browser refused the clipboard; select the token and copy it by hand.</p>}
    </div>
  );
}
