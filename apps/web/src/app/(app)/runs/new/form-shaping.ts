/**
 * The launch form's data shaping, free of React so it can be tested alone: which fields
 * show first and which fold under Advanced, which protocols a judge endpoint allows, one
 * error per field out of every check, and the plan estimate as the panel prints it.
 */
import type { RouterOutputs } from "@stepwiser/api";
import { isJudgeProtocolId, type JudgeProtocolId } from "@stepwiser/core";
import { formatBytes } from "~/lib/format-bytes";
import { protocolTitle } from "~/lib/judge-protocols";
import { endpointProtocolWarning, protocolChoices } from "./protocol-form";
import type { FieldProblem, FormField } from "./schema-form";

/** The fields shown first and those folded under Advanced, each in schema order; the split is the hints' `advanced` flag. */
export function groupFields(fields: readonly FormField[]): { basic: FormField[]; advanced: FormField[] } {
  return { basic: fields.filter((f) => !f.advanced), advanced: fields.filter((f) => f.advanced) };
}

/** A judge endpoint as the form knows it: its name and the protocols it declares. */
export interface ProtocolEndpoint {
  name: string;
  protocols: readonly string[];
}

/**
 * The protocol select's choices: the kind's protocols, narrowed to those the chosen judge
 * endpoint declares (all of the kind's until one is chosen), in registry order.
 */
export function allowedProtocols(kind: string, endpoint: ProtocolEndpoint | undefined): JudgeProtocolId[] {
  const choices = protocolChoices(kind);
  return endpoint ? choices.filter((id) => endpoint.protocols.includes(id)) : choices;
}

/**
 * The protocol the form uses: the one the user chose, else the first the endpoint allows
 * (else the kind's first). A choice the endpoint does not declare is kept (it is refused
 * beside the select), so changing the endpoint never changes a protocol picked on purpose.
 */
export function effectiveProtocol(kind: string, chosen: string | undefined, endpoint: ProtocolEndpoint | undefined): string {
  if (chosen) return chosen;
  return allowedProtocols(kind, endpoint)[0] ?? protocolChoices(kind)[0] ?? "";
}

/** The select's options: the allowed protocols, and a kept choice the endpoint does not declare, marked as such. */
export function protocolSelectOptions(kind: string, protocol: string, endpoint: ProtocolEndpoint | undefined): Array<[string, string]> {
  const allowed = allowedProtocols(kind, endpoint);
  const options: Array<[string, string]> = allowed.map((id) => [id, protocolTitle(id)]);
  if (protocol && !allowed.includes(protocol as JudgeProtocolId) && isJudgeProtocolId(protocol) && endpoint) {
    options.push([protocol, `${protocolTitle(protocol)} — not declared by ${endpoint.name}`]);
  }
  return options;
}

/**
 * The problem of a protocol the chosen endpoint does not declare, at the protocol field (the
 * one place the form says it), or null when it declares it or none is chosen.
 */
export function protocolMismatch(endpoint: ProtocolEndpoint | undefined, protocol: string): FieldProblem | null {
  const message = endpoint ? endpointProtocolWarning({ name: endpoint.name, protocols: [...endpoint.protocols] }, protocol) : null;
  return message === null ? null : { field: "protocol", message };
}

/** Where problems are shown: a field's anchor (a control's name, `labelRules.1.gamma` under its row) or the form as a whole. */
export interface ShownErrors {
  /** One message per anchor, the first found. */
  byField: Map<string, string>;
  /** Problems no control shows (a field the form does not have): listed once above Launch. */
  general: string[];
}

/** The anchor of a problem's field: the longest anchor that is the field or a dotted prefix of it. */
function anchorOf(field: string, anchors: ReadonlySet<string>): string | null {
  for (let path = field; path !== ""; path = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "") {
    if (anchors.has(path)) return path;
  }
  return null;
}

/**
 * One error per field out of every check, in the order given (the form's own reading and
 * protocol check first; the server's validation is asked only when they find nothing): the
 * first problem at an anchor wins and the rest there are dropped, so one mistake is said once.
 */
export function errorsPerField(problems: readonly FieldProblem[], anchors: Iterable<string>): ShownErrors {
  const known = new Set(anchors);
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const problem of problems) {
    const anchor = problem.field ? anchorOf(problem.field, known) : null;
    if (anchor === null) {
      const text = problem.field ? `${problem.field}: ${problem.message}` : problem.message;
      if (!general.includes(text)) general.push(text);
    } else if (!byField.has(anchor)) {
      byField.set(anchor, anchor === problem.field ? problem.message : `${problem.field.slice(anchor.length + 1)}: ${problem.message}`);
    }
  }
  return { byField, general };
}

/** The required fields still empty, by label: what the form says stands between it and Launch. */
export function missingRequired(problems: readonly FieldProblem[], fields: readonly FormField[]): string[] {
  const labels = new Map(fields.map((f) => [f.name, f.label]));
  return problems.filter((p) => p.message === "is required" && labels.has(p.field)).map((p) => labels.get(p.field)!);
}

/** What the estimate panel shows: the plan service's answer (`run.plan`). */
export type PlanEstimate = RouterOutputs["run"]["plan"];

export interface EstimateRow {
  /** Stable key, for tests and React. */
  key: string;
  label: string;
  value: string;
}

const count = (n: number) => Math.round(n).toLocaleString("en");

/** "12.3 h", "45 min", "20 s": hours as a reader wants them. */
export function formatHours(hours: number): string {
  if (hours >= 1) return `${hours < 10 ? hours.toFixed(1) : Math.round(hours).toLocaleString("en")} h`;
  const minutes = hours * 60;
  if (minutes >= 1) return `${Math.round(minutes)} min`;
  return `${Math.max(1, Math.round(minutes * 60))} s`;
}

/** "$0.42", "$1,234": dollars to the cent below $100, whole dollars above. */
export function formatUsd(usd: number): string {
  if (usd < 0.01 && usd > 0) return "< $0.01";
  return usd < 100 ? `$${usd.toFixed(2)}` : `$${Math.round(usd).toLocaleString("en")}`;
}

/**
 * The panel's rows: counts, tokens (an upper bound says so), hours at the typed rate (or
 * why there are none: the endpoint has finished no run to measure it by), storage and cost.
 */
export function estimateRows(plan: Extract<PlanEstimate, { available: true }>): EstimateRow[] {
  const bound = plan.upperBound ? "≤ " : "";
  const rows: EstimateRow[] = [
    { key: "solutions", label: "Solutions", value: count(plan.solutions) },
    { key: "chunks", label: "Chunks", value: count(plan.chunks) },
    { key: "requests", label: "Requests", value: `${bound}${count(plan.requests)}` },
  ];
  if (plan.rollouts !== null) rows.push({ key: "rollouts", label: "Rollouts", value: count(plan.rollouts) });
  rows.push(
    { key: "promptTokens", label: "Prompt tokens", value: `${bound}${count(plan.promptTokens)}` },
    { key: "generatedTokens", label: "Generated tokens", value: `${bound}${count(plan.generatedTokens)}` },
    {
      key: "hours",
      label: "Time",
      value:
        plan.hours !== null && plan.throughput.tokensPerSecond !== null
          ? `${bound}${formatHours(plan.hours)} at ${count(plan.throughput.tokensPerSecond)} tokens/s${throughputSource(plan.throughput)}`
          : "no measured throughput: type a tokens/s figure",
    },
    { key: "storage", label: "Storage", value: `${bound}${formatBytes(plan.storage.totalBytes)} (${plan.storage.totalGB} GB)` },
    { key: "cost", label: "Cost", value: plan.costUsd !== null ? `${bound}${formatUsd(plan.costUsd)}` : `— (${plan.costNote ?? "no prices"})` },
  );
  return rows;
}

/** Where the rate the hours are at comes from: typed, or measured over the endpoint's latest finished runs. */
function throughputSource(throughput: Extract<PlanEstimate, { available: true }>["throughput"]): string {
  if (throughput.source === "typed") return " (typed)";
  if (throughput.source === "measured" && throughput.measured) {
    const runs = throughput.measured.runIds.length;
    return ` (measured: its latest ${runs === 1 ? "finished run" : `${runs} finished runs`}, wall time)`;
  }
  return "";
}

/**
 * The typed tokens/s figure as the plan query takes it: a positive number, or undefined
 * (empty or unreadable: no hours are shown then).
 */
export function readTokensPerSecond(text: string): number | undefined {
  const value = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(value) && value > 0 ? value : undefined;
}
