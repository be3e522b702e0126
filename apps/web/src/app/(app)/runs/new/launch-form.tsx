"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, Input, Select, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { launchDescription } from "./launch-description";
import {
  endpointProtocolWarning,
  hasProtocol,
  initialProtocolValues,
  JUDGE_ENDPOINT_FIELD,
  PRM_VARIANTS,
  PROTOCOL_FIELD_LABELS,
  protocolConfig,
  protocolOptionFields,
  protocolOptions,
  sandboxBounds,
  visibleFields,
  type ProtocolOptionField,
  type ProtocolValues,
} from "./protocol-form";
import { isPaperPresetId } from "@stepwiser/core";
import { hasPresets, presetLabelRulesValue, presetOptions } from "./presets";
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
  const helpId = field.help ? `${id}-help` : undefined;
  const c = field.control;
  const title = (
    <>
      {field.label}
      {field.required && <span className="text-red-700"> *</span>} <code className="text-xs text-slate-400">{field.name}</code>
    </>
  );
  if (c.kind === "boolean") {
    return (
      <div className="self-end py-1">
        <label htmlFor={id} className="flex items-center gap-2">
          <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-describedby={helpId} />
          <span className="block text-slate-700">{title}</span>
        </label>
        {/* The hint as Field shows it. */}
        {field.help && (
          <span id={helpId} className="mt-0.5 block text-xs text-slate-500">
            {field.help}
          </span>
        )}
      </div>
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
    control = <Select id={id} value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} placeholder={placeholder} options={options} aria-describedby={helpId} />;
  } else if (c.kind === "number") {
    control = (
      <Input id={id} type="number" value={String(value)} min={c.min} max={c.max} step={c.integer ? 1 : "any"} onChange={(e) => onChange(e.target.value)} required={field.required} aria-describedby={helpId} />
    );
  } else if (c.kind === "lines" || c.kind === "json") {
    control = (
      <Textarea
        id={id}
        className="font-mono text-xs"
        rows={c.kind === "json" ? Math.min(10, String(value).split("\n").length + 1) : 3}
        value={String(value)}
        placeholder={c.kind === "lines" ? "one per line (empty: all)" : undefined}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={helpId}
      />
    );
  } else {
    control = <Input id={id} type="text" value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} aria-describedby={helpId} />;
  }
  return (
    <Field label={title} hint={field.help && <span id={helpId}>{field.help}</span>} className={c.kind === "json" || c.kind === "lines" ? "sm:col-span-2" : undefined}>
      {control}
    </Field>
  );
}

/** The judge protocol select and the chosen protocol's own settings. */
function ProtocolControls({ kind, schema, protocol, values, warning, onProtocol, onValue }: {
  kind: string;
  schema: RunConfigSchema | undefined;
  protocol: string;
  values: ProtocolValues;
  warning: string | null;
  onProtocol: (protocol: string) => void;
  onValue: (name: ProtocolOptionField, value: string | boolean) => void;
}) {
  const shown = protocolOptionFields(protocol, values);
  const number = (name: "threshold" | "timeLimitMs" | "cpuSeconds" | "memoryMb") => {
    const bounds = name === "threshold" ? { min: 0, max: 1 } : sandboxBounds(schema, name);
    return (
      <Field key={name} label={PROTOCOL_FIELD_LABELS[name]}>
        <Input type="number" value={String(values[name])} min={bounds.min} max={bounds.max} step={name === "threshold" ? "any" : 1} required onChange={(e) => onValue(name, e.target.value)} />
      </Field>
    );
  };
  return (
    <fieldset className="space-y-3 border-t border-slate-100 pt-3">
      <legend className="sr-only">Judge protocol</legend>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field label="Protocol" hint="How the judge is asked and how its answer is read; the run records the id and version.">
          <Select value={protocol} onChange={(e) => onProtocol(e.target.value)} options={protocolOptions(kind)} aria-describedby={warning ? "run-protocol-warning" : undefined} />
        </Field>
        {shown.includes("threshold") && number("threshold")}
        {shown.includes("prmVariant") && (
          <Field label={PROTOCOL_FIELD_LABELS.prmVariant}>
            <Select value={String(values.prmVariant)} onChange={(e) => onValue("prmVariant", e.target.value)} options={PRM_VARIANTS.map((v) => [v, v] as const)} />
          </Field>
        )}
      </div>
      {warning && (
        <p id="run-protocol-warning" role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
          {warning}
        </p>
      )}
      {shown.includes("executeCode") && (
        <div className="space-y-2">
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={values.executeCode === true} onChange={(e) => onValue("executeCode", e.target.checked)} />
            <span className="text-slate-700">{PROTOCOL_FIELD_LABELS.executeCode}</span>
          </label>
          <p className="text-xs text-slate-500">
            {values.executeCode === true
              ? "Warning: the python blocks the judge writes are executed on the worker, inside the sandbox and its limits below. Model output is untrusted: turn this on only for judges you are willing to run code from."
              : "Off: the judge's own \"[Code Output]\" text is kept as written, as GenPRM without execution. Turning it on runs model-written python on the worker, inside a sandbox."}
          </p>
          {values.executeCode === true && <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">{(["timeLimitMs", "cpuSeconds", "memoryMb"] as const).map(number)}</div>}
        </div>
      )}
    </fieldset>
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
  const [preset, setPreset] = useState("");
  const [description, setDescription] = useState({ name: "", tags: "", notes: "" });
  const [protocolValues, setProtocolValues] = useState<Record<string, Partial<ProtocolValues>>>({});
  const launch = useMutation(trpc.run.launch.mutationOptions({ onSuccess: ({ runId }) => router.push(`/runs/${runId}`) }));

  const schema = schemas.data?.find((s) => s.kind === kind)?.schema as RunConfigSchema | undefined;
  const hints = schemas.data?.find((s) => s.kind === kind)?.hints;
  const fields = useMemo(() => (schema ? formFields(schema, hints) : []), [schema, hints]);
  const current = (field: FormField) => values[kind]?.[field.name] ?? (field.name === "datasetId" && initialDatasetId ? initialDatasetId : field.initial);
  const set = (name: string, value: string | boolean) => setValues((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }));
  const protocolField = fields.find((f) => f.name === "protocol");
  const protocol = protocolField ? String(current(protocolField)) : "";
  const options: ProtocolValues = { ...initialProtocolValues(schema), ...protocolValues[kind] };
  const setOption = (name: ProtocolOptionField, value: string | boolean) => setProtocolValues((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }));
  const shownFields = visibleFields(kind, fields, protocol);
  const judgeField = fields.find((f) => f.name === JUDGE_ENDPOINT_FIELD);
  const judgeName = judgeField ? String(current(judgeField)) : "";
  const protocolWarning = hasProtocol(kind) ? endpointProtocolWarning(endpoints.data?.find((e) => e.name === judgeName && e.role === "judge"), protocol) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      const config = { ...configFromValues(shownFields, Object.fromEntries(shownFields.map((f) => [f.name, current(f)]))), ...protocolConfig(kind, protocol, options) };
      launch.mutate({ kind: kind as "annotate", config, offline: offline && OFFLINE_KINDS.has(kind), ...launchDescription(description) });
    } catch (error) {
      setProblem(error instanceof FieldError ? error.message : String(error));
    }
  };

  const loadError = schemas.error ?? datasets.error ?? endpoints.error;
  if (loadError) return <ErrorAlert>{errorMessage(loadError)}</ErrorAlert>;
  if (!schemas.data || !datasets.data || !endpoints.data) return <p className="text-sm text-slate-500">Loading…</p>;
  return (
    <Card as="form" onSubmit={submit} aria-label="Launch a run" className="space-y-4 text-sm">
      <div className="flex flex-wrap gap-3">
        <Field label="Run kind" className="max-w-xs">
          <Select value={kind} onChange={(e) => setKind(e.target.value)} options={schemas.data.map((s) => [s.kind, s.kind.replaceAll("_", "-")] as const)} />
        </Field>
        {hasPresets(kind) && (
          <Field label="Paper preset" hint="Sets the label rules to the paper's γ and α for that policy size." className="max-w-xs">
            <Select
              value={preset}
              onChange={(e) => {
                setPreset(e.target.value);
                if (isPaperPresetId(e.target.value)) set("labelRules", presetLabelRulesValue(e.target.value));
              }}
              options={presetOptions()}
            />
          </Field>
        )}
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {shownFields.map((field) => (
          <FieldControl key={`${kind}-${field.name}`} field={field} value={current(field)} onChange={(v) => set(field.name, v)} datasets={datasets.data} endpoints={endpoints.data} />
        ))}
      </div>
      {hasProtocol(kind) && protocolField && (
        <ProtocolControls kind={kind} schema={schema} protocol={protocol} values={options} warning={protocolWarning} onProtocol={(p) => set("protocol", p)} onValue={setOption} />
      )}
      <fieldset className="grid grid-cols-1 gap-3 border-t border-slate-100 pt-3 sm:grid-cols-2">
        <legend className="sr-only">Name, tags and notes</legend>
        <Field label="Name" hint="Optional; names need not be unique.">
          <Input value={description.name} maxLength={120} placeholder="generated from kind, model and parameters" onChange={(e) => setDescription({ ...description, name: e.target.value })} />
        </Field>
        <Field label="Tags" hint="Optional, comma-separated: baseline, paper-table-2.">
          <Input value={description.tags} onChange={(e) => setDescription({ ...description, tags: e.target.value })} />
        </Field>
        <Field label="Notes" hint="Optional Markdown: what this run is for." className="sm:col-span-2">
          <Textarea rows={3} value={description.notes} onChange={(e) => setDescription({ ...description, notes: e.target.value })} />
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
