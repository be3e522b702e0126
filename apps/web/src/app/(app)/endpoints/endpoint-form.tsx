"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { DEFAULT_ENDPOINT_PROTOCOLS } from "@stepwiser/core";
import { SERVER_KIND_LABELS, SERVER_KIND_SETTINGS, type ServerKindSetting } from "@stepwiser/inference/server-kind";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useState, type FormEvent } from "react";
import { Button, Card, CardTitle, ErrorAlert, Field, Input, Select, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { checkedProtocols, endpointProtocolChoices } from "~/lib/judge-protocols";
import { useTRPC } from "~/trpc/react";

export type EndpointRow = RouterOutputs["endpoint"]["list"][number];

const ROLES = ["policy", "judge", "segmenter"] as const;
type EndpointRole = (typeof ROLES)[number];

const FIELD_LABELS: Record<string, string> = {
  name: "Name",
  baseUrls: "Base URLs",
  model: "Model",
  role: "Role",
  maxConcurrency: "Max concurrency per replica",
  apiKey: "API key",
  promptPricePerMTokens: "Prompt price",
  cachedPromptPricePerMTokens: "Cached prompt price",
  completionPricePerMTokens: "Completion price",
  protocols: "Judge protocols",
  serverKind: "Server",
};

const PRICE_FIELDS = [
  ["promptPricePerMTokens", "Prompt price (USD / 1M tokens)"],
  ["cachedPromptPricePerMTokens", "Cached prompt price (USD / 1M tokens)"],
  ["completionPricePerMTokens", "Completion price (USD / 1M tokens)"],
] as const;

/** A price as typed: empty = no price. */
function priceOf(form: FormData, name: string): number | null {
  const raw = String(form.get(name) ?? "").trim();
  return raw === "" ? null : Number(raw);
}

/** Field errors under the labels the form shows: "Base URLs, URL 2: must be an http(s) URL". */
function formErrorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const issues = (error.data as { zodIssues?: Array<{ path: string; message: string }> | null } | undefined)?.zodIssues;
    if (issues?.length) {
      return issues
        .map(({ path, message }) => {
          const [field = "", index] = path.split(".");
          const label = FIELD_LABELS[field] ?? field;
          const where = field === "baseUrls" && index !== undefined && /^\d+$/.test(index) ? `${label}, URL ${Number(index) + 1}` : label;
          return where ? `${where}: ${message}` : message;
        })
        .join("\n");
    }
  }
  return errorMessage(error);
}

/** Add (endpoint = null) or edit form; admins only, the API refuses anyone else. */
export function EndpointForm({ endpoint, onDone }: { endpoint: EndpointRow | null; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.endpoint.list.queryKey() });
  const create = useMutation(trpc.endpoint.create.mutationOptions({ onSuccess: refresh }));
  const update = useMutation(trpc.endpoint.update.mutationOptions({ onSuccess: refresh }));
  const [clearKey, setClearKey] = useState(false);
  const saving = create.isPending || update.isPending;
  const error = create.error ?? update.error;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const fields = {
      name: String(form.get("name") ?? ""),
      baseUrls: String(form.get("baseUrls") ?? "")
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.length > 0),
      model: String(form.get("model") ?? ""),
      role: String(form.get("role") ?? "policy") as EndpointRole,
      maxConcurrency: Number(form.get("maxConcurrency") ?? 64),
      promptPricePerMTokens: priceOf(form, "promptPricePerMTokens"),
      cachedPromptPricePerMTokens: priceOf(form, "cachedPromptPricePerMTokens"),
      completionPricePerMTokens: priceOf(form, "completionPricePerMTokens"),
      protocols: checkedProtocols(form.getAll("protocols").map(String)),
      serverKind: String(form.get("serverKind") ?? "auto") as ServerKindSetting,
    };
    const typedKey = String(form.get("apiKey") ?? "").trim();
    if (endpoint) {
      // Absent = keep the stored key; "" = remove it.
      const apiKey = clearKey ? "" : typedKey.length > 0 ? typedKey : undefined;
      update.mutate({ id: endpoint.id, ...fields, ...(apiKey === undefined ? {} : { apiKey }) }, { onSuccess: onDone });
    } else {
      create.mutate({ ...fields, ...(typedKey ? { apiKey: typedKey } : {}) }, { onSuccess: onDone });
    }
  }

  return (
    <Card as="form" onSubmit={onSubmit} className="space-y-3 text-sm">
      <CardTitle>{endpoint ? `Edit ${endpoint.name}` : "Add an endpoint"}</CardTitle>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name">
          <Input name="name" type="text" required maxLength={100} defaultValue={endpoint?.name} />
        </Field>
        <Field label="Model">
          <Input name="model" type="text" required maxLength={300} defaultValue={endpoint?.model} placeholder="as the server lists it in /v1/models" />
        </Field>
        <Field label="Base URLs (one per line)" className="sm:col-span-2">
          <Textarea
            name="baseUrls"
            required
            rows={3}
            defaultValue={endpoint?.baseUrls.join("\n")}
            placeholder={"http://gpu-node-1:8000/v1\nhttp://gpu-node-2:8000/v1"}
            aria-describedby="endpoint-base-urls-hint"
            className="font-mono"
          />
        </Field>
        <p id="endpoint-base-urls-hint" className="-mt-2 text-xs text-slate-500 sm:col-span-2">
          One OpenAI-compatible base URL per replica serving the model, usually ending in /v1 (vLLM, SGLang). Requests are
          spread over the replicas.
        </p>
        <Field label="Role">
          <Select name="role" defaultValue={endpoint?.role ?? "policy"} options={ROLES.map((role) => [role, role] as const)} />
        </Field>
        <Field label="Server">
          <Select
            name="serverKind"
            defaultValue={endpoint?.serverKind ?? "auto"}
            options={SERVER_KIND_SETTINGS.map((kind) => [kind, SERVER_KIND_LABELS[kind]] as const)}
            aria-describedby="endpoint-server-kind-hint"
          />
        </Field>
        <p id="endpoint-server-kind-hint" className="-mt-2 text-xs text-slate-500 sm:col-span-2">
          &ldquo;detect&rdquo; asks the server&apos;s model list. vLLM gives each of K samples of a seeded request its own seed;
          on any other server the K samples are sent as K requests with seeds s, s+1, …, so they differ and stay reproducible.
        </p>
        <Field label="Max concurrency per replica">
          <Input name="maxConcurrency" type="number" required min={1} max={4096} step={1} defaultValue={endpoint?.maxConcurrency ?? 64} />
        </Field>
        {PRICE_FIELDS.map(([name, label]) => (
          <Field key={name} label={label}>
            <Input name={name} type="number" min={0} max={10000} step="any" defaultValue={endpoint?.[name] ?? ""} placeholder="none" />
          </Field>
        ))}
        <p className="-mt-2 text-xs text-slate-500 sm:col-span-2">
          Optional. With a prompt and a completion price, runs launched on this endpoint state their cost (prices are copied into each run at
          launch). Cached prompt tokens cost the prompt price unless a cached price is set.
        </p>
        <fieldset className="space-y-1 sm:col-span-2" aria-describedby="endpoint-protocols-hint">
          <legend className="text-slate-700">Judge protocols</legend>
          <p id="endpoint-protocols-hint" className="text-xs text-slate-500">
            For judge endpoints: the ways of judging the server behind this endpoint can answer; a run asking its judge for another one is
            refused at launch. Each needs its own server API.
          </p>
          <div className="grid gap-1 sm:grid-cols-2">
            {endpointProtocolChoices().map((choice) => (
              <label key={choice.id} className="flex items-start gap-2">
                <input
                  type="checkbox"
                  name="protocols"
                  value={choice.id}
                  className="mt-1"
                  defaultChecked={(endpoint?.protocols ?? DEFAULT_ENDPOINT_PROTOCOLS).includes(choice.id)}
                />
                <span>
                  <span className="text-slate-800">{choice.label}</span> <code className="text-xs text-slate-400">{choice.id}</code>
                  <span className="block text-xs text-slate-500">needs {choice.needs}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="API key" className="sm:col-span-2">
          <Input
            name="apiKey"
            type="password"
            autoComplete="new-password"
            disabled={clearKey}
            aria-describedby="endpoint-api-key-hint"
            placeholder={endpoint?.hasApiKey ? "•••••••• (stored)" : "none"}
            className="font-mono"
          />
        </Field>
        <div id="endpoint-api-key-hint" className="-mt-2 space-y-1 text-xs text-slate-500 sm:col-span-2">
          <p>
            Sent as a bearer token by the server only; it is never shown again.
            {endpoint ? (endpoint.hasApiKey ? " Leave empty to keep the stored key." : " No key is stored.") : " Optional."}
          </p>
          {endpoint?.hasApiKey && (
            <label className="flex items-center gap-2 text-slate-700">
              <input type="checkbox" checked={clearKey} onChange={(e) => setClearKey(e.target.checked)} />
              Remove the stored key
            </label>
          )}
        </div>
      </div>
      {error && <ErrorAlert>{formErrorMessage(error)}</ErrorAlert>}
      <div className="flex gap-2">
        <Button type="submit" variant="dark" disabled={saving}>
          {saving ? "Saving…" : endpoint ? "Save changes" : "Add endpoint"}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </Card>
  );
}
