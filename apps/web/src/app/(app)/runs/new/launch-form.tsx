"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, Input, Select, Textarea } from "~/components/ui";
import { useDebouncedValue } from "~/hooks/use-debounced-value";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { EstimatePanel } from "./estimate-panel";
import { effectiveProtocol, errorsPerField, groupFields, missingRequired, protocolMismatch, protocolSelectOptions, readTokensPerSecond, type PlanEstimate, type ProtocolEndpoint } from "./form-shaping";
import { FieldErrorText, labelConfidenceAnchors, labelRuleAnchors, LabelConfidenceEditor, LabelRulesEditor } from "./label-editor-views";
import { confidenceDraft, type LabelConfidenceDraft, type LabelRuleRow } from "./label-editors";
import { launchDescription } from "./launch-description";
import {
  hasProtocol,
  initialProtocolValues,
  JUDGE_ENDPOINT_FIELD,
  PRM_VARIANTS,
  PROTOCOL_FIELD_LABELS,
  protocolConfig,
  protocolOptionFields,
  sandboxBounds,
  visibleFields,
  type ProtocolOptionField,
  type ProtocolValues,
} from "./protocol-form";
import { FieldError, formFields, readConfig, type FieldProblem, type FieldValue, type FormField, type RunConfigSchema } from "./schema-form";

/** Kinds that can run offline through an OpenAI batch file. */
const OFFLINE_KINDS = new Set(["annotate", "judge"]);
/** The protocol options' controls, as error anchors (`protocolOptions.threshold`). */
const PROTOCOL_OPTION_ANCHORS = ["threshold", "prmVariant", "executeCode", "sandbox", "sandbox.timeLimitMs", "sandbox.cpuSeconds", "sandbox.memoryMb"].map((name) => `protocolOptions.${name}`);
const SANDBOX_ANCHOR: Readonly<Record<string, string>> = { timeLimitMs: "protocolOptions.sandbox.timeLimitMs", cpuSeconds: "protocolOptions.sandbox.cpuSeconds", memoryMb: "protocolOptions.sandbox.memoryMb" };

interface Choices {
  datasets: { id: string; name: string }[];
  endpoints: { name: string; role: string; model: string }[];
  runs: { id: string; label: string }[];
}

function FieldControl({ field, value, error, onChange, choices }: { field: FormField; value: FieldValue; error: string | undefined; onChange: (value: FieldValue) => void; choices: Choices }) {
  const id = `run-field-${field.name}`;
  const helpId = field.help ? `${id}-help` : undefined;
  const errorId = `${id}-error`;
  const describedBy = [helpId, error ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  const c = field.control;
  const title = (
    <>
      {field.label}
      {field.required && <span className="text-red-700"> *</span>}
    </>
  );
  const errorText = <FieldErrorText id={errorId} message={error} />;
  if (c.kind === "boolean") {
    return (
      <div className="self-end py-1">
        <label htmlFor={id} className="flex items-center gap-2">
          <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-describedby={describedBy} />
          <span className="block text-slate-700">{title}</span>
        </label>
        {field.help && (
          <span id={helpId} className="mt-0.5 block text-xs text-slate-500">
            {field.help}
          </span>
        )}
        {errorText}
      </div>
    );
  }
  if (c.kind === "labelRules" || c.kind === "labelConfidence") {
    // Rows of controls: a group named by the field, not one labelled control.
    return (
      <div role="group" aria-labelledby={`${id}-label`} aria-describedby={describedBy} className="min-w-0 text-sm sm:col-span-2 lg:col-span-3">
        <span id={`${id}-label`} className="block text-slate-700">
          {title}
        </span>
        {field.help && (
          <span id={helpId} className="mb-1 block text-xs text-slate-500">
            {field.help}
          </span>
        )}
        {errorText}
      </div>
    );
  }
  let control;
  if (c.kind === "dataset" || c.kind === "endpoint" || c.kind === "enum" || c.kind === "run") {
    const options: [string, string][] =
      c.kind === "dataset"
        ? choices.datasets.map((d) => [d.id, d.name])
        : c.kind === "endpoint"
          ? choices.endpoints.filter((e) => e.role === c.role).map((e) => [e.name, `${e.name} (${e.model})`])
          : c.kind === "run"
            ? choices.runs.map((r) => [r.id, r.label])
            : c.options.map((o) => [o, o]);
    const placeholder = !field.required || value === "" ? (field.required ? "Choose…" : "—") : undefined;
    control = (
      <Select id={id} value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} placeholder={placeholder} options={options} aria-describedby={describedBy} aria-invalid={error ? true : undefined} />
    );
  } else if (c.kind === "number") {
    control = (
      <Input
        id={id}
        type="number"
        value={String(value)}
        min={c.min}
        max={c.max}
        step={c.integer ? 1 : "any"}
        onChange={(e) => onChange(e.target.value)}
        required={field.required}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
      />
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
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
      />
    );
  } else {
    control = <Input id={id} type="text" value={String(value)} onChange={(e) => onChange(e.target.value)} required={field.required} aria-describedby={describedBy} aria-invalid={error ? true : undefined} />;
  }
  return (
    <Field
      label={title}
      hint={
        <>
          {field.help && <span id={helpId}>{field.help}</span>}
          {errorText}
        </>
      }
      className={c.kind === "json" || c.kind === "lines" ? "sm:col-span-2" : undefined}
    >
      {control}
    </Field>
  );
}

/** The judge protocol select (narrowed to what the judge endpoint declares) and the chosen protocol's own settings. */
function ProtocolControls({ kind, schema, protocol, help, endpoint, values, errors, onProtocol, onValue }: {
  kind: string;
  schema: RunConfigSchema | undefined;
  protocol: string;
  help: string | undefined;
  endpoint: ProtocolEndpoint | undefined;
  values: ProtocolValues;
  errors: ReadonlyMap<string, string>;
  onProtocol: (protocol: string) => void;
  onValue: (name: ProtocolOptionField, value: string | boolean) => void;
}) {
  const shown = protocolOptionFields(protocol, values);
  const protocolError = errors.get("protocol");
  const number = (name: "threshold" | "timeLimitMs" | "cpuSeconds" | "memoryMb") => {
    const bounds = name === "threshold" ? { min: 0, max: 1 } : sandboxBounds(schema, name);
    const anchor = SANDBOX_ANCHOR[name] ?? `protocolOptions.${name}`;
    return (
      <Field key={name} label={PROTOCOL_FIELD_LABELS[name]} hint={<FieldErrorText id={`run-protocol-${name}-error`} message={errors.get(anchor)} />}>
        <Input type="number" value={String(values[name])} min={bounds.min} max={bounds.max} step={name === "threshold" ? "any" : 1} required onChange={(e) => onValue(name, e.target.value)} />
      </Field>
    );
  };
  return (
    <fieldset className="space-y-3 border-t border-slate-100 pt-3">
      <legend className="sr-only">Judge protocol</legend>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field
          label="Protocol"
          hint={
            <>
              <span id="run-protocol-help">
                {help ?? "How the judge is asked and how its answer is read; the run records the id and version."}
                {endpoint ? ` Offered: the protocols ${endpoint.name} declares.` : ""}
              </span>
              <FieldErrorText id="run-protocol-error" message={protocolError} />
            </>
          }
        >
          <Select
            id="run-field-protocol"
            value={protocol}
            onChange={(e) => onProtocol(e.target.value)}
            options={protocolSelectOptions(kind, protocol, endpoint)}
            aria-describedby={protocolError ? "run-protocol-help run-protocol-error" : "run-protocol-help"}
            aria-invalid={protocolError ? true : undefined}
          />
        </Field>
        {shown.includes("threshold") && number("threshold")}
        {shown.includes("prmVariant") && (
          <Field label={PROTOCOL_FIELD_LABELS.prmVariant} hint={<FieldErrorText id="run-protocol-prmVariant-error" message={errors.get("protocolOptions.prmVariant")} />}>
            <Select value={String(values.prmVariant)} onChange={(e) => onValue("prmVariant", e.target.value)} options={PRM_VARIANTS.map((v) => [v, v] as const)} />
          </Field>
        )}
      </div>
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
          <FieldErrorText id="run-protocol-executeCode-error" message={errors.get("protocolOptions.executeCode")} />
          {values.executeCode === true && <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">{(["timeLimitMs", "cpuSeconds", "memoryMb"] as const).map(number)}</div>}
        </div>
      )}
    </fieldset>
  );
}

/**
 * A form per run kind, generated from the kind's configuration schema and its field hints:
 * the fields a first run needs, the rest under Advanced; every change is checked as the
 * server checks a launch (`run.validate`) and estimated (`run.plan`), debounced, and Launch
 * stays disabled until the configuration is valid.
 */
export function LaunchForm({ initialKind, initialDatasetId }: { initialKind?: string; initialDatasetId?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const schemas = useQuery(trpc.run.schemas.queryOptions());
  const datasets = useQuery(trpc.dataset.list.queryOptions());
  const endpoints = useQuery(trpc.endpoint.list.queryOptions());
  const [kind, setKind] = useState(initialKind ?? "annotate");
  const [values, setValues] = useState<Record<string, Record<string, FieldValue>>>({});
  const [offline, setOffline] = useState(false);
  const [description, setDescription] = useState({ name: "", tags: "", notes: "" });
  const [protocolValues, setProtocolValues] = useState<Record<string, Partial<ProtocolValues>>>({});
  const [tokensPerSecond, setTokensPerSecond] = useState("");
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const launch = useMutation(trpc.run.launch.mutationOptions({ onSuccess: ({ runId }) => router.push(`/runs/${runId}`) }));

  const entry = schemas.data?.find((s) => s.kind === kind);
  const schema = entry?.schema as RunConfigSchema | undefined;
  const hints = entry?.hints;
  const fields = useMemo(() => (schema ? formFields(schema, hints) : []), [schema, hints]);
  const runs = useQuery({ ...trpc.run.list.queryOptions({ kinds: ["annotate"], statuses: ["completed", "completed_with_failures"], pageSize: 50 }), enabled: fields.some((f) => f.control.kind === "run") });
  const current = (field: FormField): FieldValue => values[kind]?.[field.name] ?? (field.name === "datasetId" && initialDatasetId ? initialDatasetId : field.initial);
  const set = (name: string, value: FieldValue) => setValues((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }));

  const protocolField = fields.find((f) => f.name === "protocol");
  const judgeField = fields.find((f) => f.name === JUDGE_ENDPOINT_FIELD);
  const judgeName = judgeField ? String(current(judgeField)) : "";
  const judgeEndpoint = endpoints.data?.find((e) => e.name === judgeName && e.role === "judge");
  const chosenProtocol = values[kind]?.protocol;
  const protocol = hasProtocol(kind) && protocolField ? effectiveProtocol(kind, typeof chosenProtocol === "string" ? chosenProtocol : undefined, judgeEndpoint) : "";
  const options: ProtocolValues = { ...initialProtocolValues(schema), ...protocolValues[kind] };
  const setOption = (name: ProtocolOptionField, value: string | boolean) => setProtocolValues((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }));
  const shownFields = visibleFields(kind, fields, protocol);
  const groups = groupFields(shownFields);

  // The form's own reading: values that cannot be read, the protocol and its options, a protocol the endpoint does not declare.
  const read = readConfig(shownFields, Object.fromEntries(shownFields.map((f) => [f.name, current(f)])));
  const local: FieldProblem[] = [...read.problems];
  let config = read.config;
  if (hasProtocol(kind) && protocolField) {
    try {
      config = { ...config, ...protocolConfig(kind, protocol, options) };
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      local.push({ field: error.field, message: error.reason });
    }
    const mismatch = protocolMismatch(judgeEndpoint, protocol);
    if (mismatch) local.push(mismatch);
  }
  const request = { kind: kind as "annotate", config, offline: offline && OFFLINE_KINDS.has(kind), ...launchDescription(description) };
  const requestKey = JSON.stringify(request);
  const rate = readTokensPerSecond(tokensPerSecond);
  // The server is asked once the form reads and has stopped changing for a moment.
  const settledKey = useDebouncedValue(local.length === 0 ? requestKey : null, 300);
  const settled = settledKey === null ? null : (JSON.parse(settledKey) as typeof request);
  const validation = useQuery({ ...trpc.run.validate.queryOptions(settled ?? request), enabled: settled !== null });
  const settledRate = useDebouncedValue(rate, 300);
  const plan = useQuery({ ...trpc.run.plan.queryOptions({ kind: (settled ?? request).kind, config: (settled ?? request).config, tokensPerSecond: settledRate }), enabled: settled !== null });

  const current_ = settledKey === requestKey;
  const server: FieldProblem[] = current_ && validation.data && !validation.data.valid ? [{ field: validation.data.field ?? "", message: validation.data.message }] : [];
  const anchors = [
    ...shownFields.map((f) => f.name),
    "protocol",
    ...PROTOCOL_OPTION_ANCHORS,
    "name",
    "tags",
    "notes",
    ...shownFields.flatMap((f) => {
      const value = current(f);
      if (f.control.kind === "labelRules" && Array.isArray(value)) return labelRuleAnchors(f.name, value);
      if (f.control.kind === "labelConfidence") return labelConfidenceAnchors(f.name);
      return [];
    }),
  ];
  const missing = missingRequired(local, shownFields);
  // A required field left empty is listed beside Launch ("Needs: Dataset"), not marked as a mistake.
  const shown = errorsPerField([...local.filter((p) => !(p.message === "is required" && shownFields.some((f) => f.name === p.field))), ...server], anchors);
  const checking = local.length === 0 && (!current_ || validation.isFetching);
  const valid = local.length === 0 && current_ && validation.data?.valid === true && !validation.isFetching;
  const advancedHasError = groups.advanced.some((f) => [...shown.byField.keys()].some((anchor) => anchor === f.name || anchor.startsWith(`${f.name}.`)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) launch.mutate(request);
  };

  const loadError = schemas.error ?? datasets.error ?? endpoints.error;
  if (loadError) return <ErrorAlert>{errorMessage(loadError)}</ErrorAlert>;
  if (!schemas.data || !datasets.data || !endpoints.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const choices: Choices = {
    datasets: datasets.data,
    endpoints: endpoints.data,
    runs: (runs.data?.runs ?? []).map((r) => ({ id: r.id, label: r.label })),
  };
  const renderField = (field: FormField) => {
    const value = current(field);
    const error = shown.byField.get(field.name);
    const control = <FieldControl key={`${kind}-${field.name}`} field={field} value={value} error={error} onChange={(v) => set(field.name, v)} choices={choices} />;
    if (field.control.kind === "labelRules") {
      return (
        <div key={`${kind}-${field.name}`} className="space-y-1 sm:col-span-2 lg:col-span-3">
          {control}
          <LabelRulesEditor name={field.name} rows={Array.isArray(value) ? value : []} errors={shown.byField} onChange={(rows: LabelRuleRow[]) => set(field.name, rows)} />
        </div>
      );
    }
    if (field.control.kind === "labelConfidence") {
      const draft = typeof value === "object" && !Array.isArray(value) ? value : confidenceDraft(undefined);
      return (
        <div key={`${kind}-${field.name}`} className="space-y-1 sm:col-span-2 lg:col-span-3">
          {control}
          <LabelConfidenceEditor name={field.name} draft={draft} errors={shown.byField} onChange={(next: LabelConfidenceDraft) => set(field.name, next)} />
        </div>
      );
    }
    return control;
  };

  return (
    <Card as="form" onSubmit={submit} aria-label="Launch a run" className="space-y-4 text-sm">
      <Field label="Run kind" className="max-w-xs">
        <Select value={kind} onChange={(e) => setKind(e.target.value)} options={schemas.data.map((s) => [s.kind, s.kind.replaceAll("_", "-")] as const)} />
      </Field>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">{groups.basic.map(renderField)}</div>
      {hasProtocol(kind) && protocolField && (
        <ProtocolControls
          kind={kind}
          schema={schema}
          protocol={protocol}
          help={protocolField.help}
          endpoint={judgeEndpoint}
          values={options}
          errors={shown.byField}
          onProtocol={(p) => set("protocol", p)}
          onValue={setOption}
        />
      )}
      {groups.advanced.length > 0 && (
        <details className="rounded border border-slate-200 p-3" data-testid="advanced-fields" open={advancedOpen || advancedHasError} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary className="cursor-pointer text-slate-700">Advanced ({groups.advanced.length} settings: sampling, seeds, concurrency, prompts…)</summary>
          <div className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">{groups.advanced.map(renderField)}</div>
        </details>
      )}
      <fieldset className="grid grid-cols-1 gap-3 border-t border-slate-100 pt-3 sm:grid-cols-2">
        <legend className="sr-only">Name, tags and notes</legend>
        <Field label="Name" hint={<>Optional; names need not be unique.<FieldErrorText id="run-name-error" message={shown.byField.get("name")} /></>}>
          <Input value={description.name} maxLength={120} placeholder="generated from kind, model and parameters" onChange={(e) => setDescription({ ...description, name: e.target.value })} />
        </Field>
        <Field label="Tags" hint={<>Optional, comma-separated: baseline, paper-table-2.<FieldErrorText id="run-tags-error" message={shown.byField.get("tags")} /></>}>
          <Input value={description.tags} onChange={(e) => setDescription({ ...description, tags: e.target.value })} />
        </Field>
        <Field label="Notes" hint={<>Optional Markdown: what this run is for.<FieldErrorText id="run-notes-error" message={shown.byField.get("notes")} /></>} className="sm:col-span-2">
          <Textarea rows={3} value={description.notes} onChange={(e) => setDescription({ ...description, notes: e.target.value })} />
        </Field>
      </fieldset>
      {OFFLINE_KINDS.has(kind) && (
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={offline} onChange={(e) => setOffline(e.target.checked)} />
          <span className="text-slate-700">Offline: create the run without queueing it, to execute it through a batch file for vllm run-batch</span>
        </label>
      )}
      <EstimatePanel
        plan={current_ ? (plan.data as PlanEstimate | undefined) : undefined}
        loading={plan.isFetching || !current_}
        error={plan.error ? errorMessage(plan.error) : null}
        waiting={local.length > 0 ? (missing.length > 0 ? `The estimate follows once ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} set.` : "The estimate follows once the configuration reads.") : null}
        tokensPerSecond={tokensPerSecond}
        onTokensPerSecond={setTokensPerSecond}
      />
      {shown.general.length > 0 && (
        <ErrorAlert>
          {shown.general.map((line) => (
            <span key={line} className="block">
              {line}
            </span>
          ))}
        </ErrorAlert>
      )}
      {validation.error && <ErrorAlert>{errorMessage(validation.error)}</ErrorAlert>}
      {launch.error && <ErrorAlert>{errorMessage(launch.error)}</ErrorAlert>}
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" size="lg" disabled={!valid || launch.isPending}>
          {launch.isPending ? "Launching…" : offline && OFFLINE_KINDS.has(kind) ? "Create offline run" : "Launch run"}
        </Button>
        <span className="text-xs text-slate-500" data-testid="launch-status">
          {missing.length > 0 ? `Needs: ${missing.join(", ")}.` : local.length > 0 || server.length > 0 ? "Fix the marked fields to launch." : checking ? "Checking the configuration…" : valid ? "Checked as the server checks a launch." : ""}
        </span>
      </div>
    </Card>
  );
}
