"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { API_TOKEN_LIFETIME_CHOICES_DAYS, API_TOKEN_SCOPES, DEFAULT_API_TOKEN_LIFETIME_DAYS, DEFAULT_API_TOKEN_SCOPE, isApiTokenScope } from "@stepwiser/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, CardTitle, DataTable, dataColumns, ErrorAlert, Field, Input, Select, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { SCOPE_LABELS, tokenLifeOf } from "./token-display";

type TokenRow = RouterOutputs["token"]["list"][number];
type CreatedToken = RouterOutputs["token"]["create"];

const column = dataColumns<TokenRow>();

const dateTime = (date: Date | null) => (date ? date.toLocaleString() : "—");

const LIFETIME_OPTIONS = API_TOKEN_LIFETIME_CHOICES_DAYS.map((days) => [String(days), `${days} days`] as const);
const SCOPE_OPTIONS = API_TOKEN_SCOPES.map((scope) => [scope, SCOPE_LABELS[scope]] as const);

export function ApiTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.token.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.token.list.queryKey() });
  const create = useMutation(trpc.token.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.token.revoke.mutationOptions({ onSuccess: refresh }));
  // Held only in this component's state: the server cannot show the plaintext again.
  const [created, setCreated] = useState<CreatedToken | null>(null);
  // When the list was last fetched: what "expires in …" is counted from.
  const now = new Date(tokens.dataUpdatedAt);

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get("name") ?? "");
    const scope = String(form.get("scope") ?? DEFAULT_API_TOKEN_SCOPE);
    setCreated(null);
    create.mutate(
      { name, expiresInDays: Number(form.get("expiresInDays") ?? DEFAULT_API_TOKEN_LIFETIME_DAYS), scope: isApiTokenScope(scope) ? scope : DEFAULT_API_TOKEN_SCOPE },
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

  const columns: DataColumn<TokenRow>[] = [
    column.accessor("name", { header: "Name", meta: { className: "font-medium" } }),
    column.accessor("prefix", { header: "Token", cell: (c) => `${c.getValue()}…`, meta: { className: "font-mono" } }),
    column.accessor("scope", { header: "Scope" }),
    column.accessor("createdAt", { header: "Created", cell: (c) => dateTime(c.getValue()) }),
    column.accessor("expiresAt", {
      header: "Expires",
      cell: ({ row: { original: token } }) => {
        const life = tokenLifeOf(token, now);
        return token.revokedAt ? "—" : <span title={dateTime(token.expiresAt)}>{life.expiry}</span>;
      },
    }),
    column.accessor("lastUsedAt", { header: "Last used", cell: (c) => (c.getValue() ? dateTime(c.getValue()) : "never") }),
    column.display({ id: "revoke", header: "", meta: { align: "right" }, cell: ({ row }) => <RevokeCell token={row.original} now={now} pending={revoke.isPending} onRevoke={onRevoke} /> }),
  ];

  return (
    <div className="space-y-6">
      <Card as="form" onSubmit={onCreate} className="space-y-3 text-sm">
        <CardTitle>New token</CardTitle>
        <div className="flex flex-wrap items-end gap-3">
          <Field label="Name (what will use it)" className="min-w-64 flex-1">
            <Input name="name" type="text" required maxLength={100} placeholder="e.g. nightly label export" />
          </Field>
          <Field label="Expires after">
            <Select name="expiresInDays" defaultValue={String(DEFAULT_API_TOKEN_LIFETIME_DAYS)} options={LIFETIME_OPTIONS} />
          </Field>
          <Field label="Scope">
            <Select name="scope" defaultValue={DEFAULT_API_TOKEN_SCOPE} options={SCOPE_OPTIONS} />
          </Field>
          <Button type="submit" variant="dark" disabled={create.isPending}>
            Create token
          </Button>
        </div>
        {create.error && <ErrorAlert>{errorMessage(create.error)}</ErrorAlert>}
        {created && <NewTokenNotice token={created} onDone={() => setCreated(null)} />}
      </Card>

      {tokens.error && <ErrorAlert>{errorMessage(tokens.error)}</ErrorAlert>}
      {revoke.error && <ErrorAlert>{errorMessage(revoke.error)}</ErrorAlert>}
      {tokens.data?.length === 0 && <p className="text-sm text-slate-600">You have no API tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <DataTable
          data={tokens.data}
          columns={columns}
          getRowId={(token) => token.id}
          rowAttributes={(token) => ({ className: tokenLifeOf(token, now).state === "active" ? undefined : "text-slate-500", "data-testid": "api-token-row" })}
        />
      )}
    </div>
  );
}

function RevokeCell({ token, now, pending, onRevoke }: { token: TokenRow; now: Date; pending: boolean; onRevoke: (token: TokenRow) => void }) {
  if (token.revokedAt) return <Badge title={`Revoked ${dateTime(token.revokedAt)}`}>revoked</Badge>;
  if (tokenLifeOf(token, now).state === "expired") return <Badge title={`Expired ${dateTime(token.expiresAt)}`}>expired</Badge>;
  return (
    <Button size="sm" variant="danger" disabled={pending} onClick={() => onRevoke(token)}>
      Revoke
    </Button>
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
        revoke it and create another. It has the {token.scope} scope and expires {token.expiresAt.toLocaleString()}.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <input
          readOnly
          value={token.token}
          aria-label={`API token ${token.name}`}
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 rounded border border-amber-300 bg-white px-2 py-1 font-mono text-slate-900"
        />
        <Button variant="dark" onClick={() => void onCopy()}>
          {copy === "copied" ? "Copied" : "Copy"}
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
      {copy === "failed" && <p className="text-sm">The browser refused the clipboard; select the token and copy it by hand.</p>}
    </div>
  );
}
