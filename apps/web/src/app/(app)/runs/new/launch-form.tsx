"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, Input, Select, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { launchAnnotations } from "./launch-annotations";
import { configFromValues, FieldError, formFields, type FormField, type RunConfigSchema } from "./schema-form";

/** Kinds that can run offline through an OpenAI batch file. */
const OFFLINE_KINDS = new Set(["annotate", "judge"]);

function FieldControl({ field, value, onChange, datasets, endpoints }: {
  field: FormField;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
  datasets: { id: string; name: string }[];
  endpoints: { name: string; role: string; model: string }[];
}) {
  const id = `run-field-${field.name}`;
  const c = field.control;
  const label = (
    <span className="block text-slate-700">
      {field.label}
      {field.required && <span className="text-red-700"> *</span>} <code className="text-xs text-slate-400">{field.name}</code>
    </span>
  );
  if (c.kind === "boolean") {
    return (
      <label htmlFor={id} className="flex items-center gap-2 self-end py-1">
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {label}
      </label>
    );
  }
  let control;
  if (c.kind === "dataset" || c.kind === "endpoint" || c.kind === "enum") {
    const options: [string, string][] =
      c.kind === "dataset"
        ? datasets.map((d) => [d.id, d.name])
        : c.kind === "endpoint"
          ? endpoints.filter((e) => e.role === c.role).map((e) => [e.name, `${e.name} (${e.model})`])
          : c.options.map((o) => [o, o]);
    const placeholder = !field.required || value === "" ? (field.required ? "Choose…" : "—") : undefined;
    control = <Select id={id} value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} placeholder={placeholder} options={options} />;
  } else if (c.kind === "number") {
    control = <Input id={id} type="number" value={String(value)} min={c.min} max={c.max} step={c.integer ? 1 : "any"} onChange={(e) => onChange(e.target.value)} required={field.required} />;
  } else if (c.kind === "lines" || c.kind === "json") {
    control = (
      <Textarea
        id={id}
        className="font-mono text-xs"
        rows={c.kind === "json" ? Math.min(10, String(value).split("\n").length + 1) : 3}
        value={String(value)}
        placeholder={c.kind === "lines" ? "one per line (empty: all)" : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else {
    control = <Input id={id} type="text" value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} />;
  }
  return (
    <label htmlFor={id} className={`min-w-0 ${c.kind === "json" || c.kind === "lines" ? "sm:col-span-2" : ""}`}>
      {label}
      {control}
    </label>
  );
}

/** A form per run kind, generated from the kind's configuration schema with its defaults filled in. */
export function LaunchForm({ initialKind, initialDatasetId }: { initialKind?: string; initialDatasetId?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const schemas = useQuery(trpc.run.schemas.queryOptions());
  const datasets = useQuery(trpc.dataset.list.queryOptions());
  const endpoints = useQuery(trpc.endpoint.list.queryOptions());
  const [kind, setKind] = useState(initialKind ?? "annotate");
  const [values, setValues] = useState<Record<string, Record<string, string | boolean>>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [offline, setOffline] = useState(false);
  const [annotations, setAnnotations] = useState({ name: "", tags: "", notes: "" });
  const launch = useMutation(trpc.run.launch.mutationOptions({ onSuccess: ({ runId }) => router.push(`/runs/${runId}`) }));

  const schema = schemas.data?.find((s) => s.kind === kind)?.schema as RunConfigSchema | undefined;
  const fields = useMemo(() => (schema ? formFields(schema) : []), [schema]);
  const current = (field: FormField) => values[kind]?.[field.name] ?? (field.name === "datasetId" && initialDatasetId ? initialDatasetId : field.initial);
  const set = (name: string, value: string | boolean) => setValues((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      const config = configFromValues(fields, Object.fromEntries(fields.map((f) => [f.name, current(f)])));
      launch.mutate({ kind: kind as "annotate", config, offline: offline && OFFLINE_KINDS.has(kind), ...launchAnnotations(annotations) });
    } catch (error) {
      setProblem(error instanceof FieldError ? error.message : String(error));
    }
  };

  const loadError = schemas.error ?? datasets.error ?? endpoints.error;
  if (loadError) return <ErrorAlert>{errorMessage(loadError)}</ErrorAlert>;
  if (!schemas.data || !datasets.data || !endpoints.data) return <p className="text-sm text-slate-500">Loading…</p>;
  return (
    <Card as="form" onSubmit={submit} aria-label="Launch a run" className="space-y-4 text-sm">
      <Field label="Run kind" className="max-w-xs">
        <Select value={kind} onChange={(e) => setKind(e.target.value)} options={schemas.data.map((s) => [s.kind, s.kind.replaceAll("_", "-")] as const)} />
      </Field>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {fields.map((field) => (
          <FieldControl key={`${kind}-${field.name}`} field={field} value={current(field)} onChange={(v) => set(field.name, v)} datasets={datasets.data} endpoints={endpoints.data} />
        ))}
      </div>
      <fieldset className="grid grid-cols-1 gap-3 border-t border-slate-100 pt-3 sm:grid-cols-2">
        <legend className="sr-only">Name, tags and notes</legend>
        <Field label="Name" hint="Optional; names need not be unique.">
          <Input value={annotations.name} maxLength={120} placeholder="generated from kind, model and parameters" onChange={(e) => setAnnotations({ ...annotations, name: e.target.value })} />
        </Field>
        <Field label="Tags" hint="Optional, comma-separated: baseline, paper-table-2.">
          <Input value={annotations.tags} onChange={(e) => setAnnotations({ ...annotations, tags: e.target.value })} />
        </Field>
        <Field label="Notes" hint="Optional Markdown: what this run is for." className="sm:col-span-2">
          <Textarea rows={3} value={annotations.notes} onChange={(e) => setAnnotations({ ...annotations, notes: e.target.value })} />
        </Field>
      </fieldset>
      {OFFLINE_KINDS.has(kind) && (
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={offline} onChange={(e) => setOffline(e.target.checked)} />
          <span className="text-slate-700">Offline: create the run without queueing it, to execute it through a batch file for vllm run-batch</span>
        </label>
      )}
      {problem && <ErrorAlert>{problem}</ErrorAlert>}
      {launch.error && <ErrorAlert>{errorMessage(launch.error)}</ErrorAlert>}
      <Button type="submit" variant="primary" size="lg" disabled={launch.isPending}>
        {launch.isPending ? "Launching…" : offline && OFFLINE_KINDS.has(kind) ? "Create offline run" : "Launch run"}
      </Button>
    </Card>
  );
}
