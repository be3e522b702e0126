/**
 * The launch form's judge protocol: which protocols a run kind offers, which of a
 * protocol's options the form asks for, and the `protocol` / `protocolOptions` the
 * form submits. Free of React so it can be tested alone.
 */
import { DEFAULT_PRM_THRESHOLD_VALUE, JUDGE_PROTOCOLS, JUDGE_RUN_KINDS, PRM_VARIANT_IDS, isJudgeProtocolId, protocolsForRunKind, type JudgeProtocolId } from "@stepwiser/core";
import { protocolLabels, protocolTitle, SERVER_API_NEEDS } from "~/lib/judge-protocols";
import { FieldError, type FormField, type JsonSchemaProperty, type RunConfigSchema } from "./schema-form";

/** The run kinds with a judge that speaks a protocol. */
export const PROTOCOL_RUN_KINDS = JUDGE_RUN_KINDS;
type ProtocolRunKind = (typeof PROTOCOL_RUN_KINDS)[number];

/** The configuration fields the protocol controls replace in the generated form (a benchmark's `mode` is the old name of its protocol). */
const PROTOCOL_FIELD_NAMES = new Set(["protocol", "protocolOptions", "mode"]);

/** Shown only with the protocol it belongs to. */
const FIELDS_OF_PROTOCOL: Readonly<Record<string, JudgeProtocolId>> = { criticPromptTemplateId: "processbench-critic", judgePromptTemplateId: "stepwiser-chunk" };

export function hasProtocol(kind: string): kind is ProtocolRunKind {
  return (PROTOCOL_RUN_KINDS as readonly string[]).includes(kind);
}

/** The protocols a kind can run, in registry order: the server's own table (core's `protocolsForRunKind`). */
export function protocolChoices(kind: string): JudgeProtocolId[] {
  return hasProtocol(kind) ? protocolsForRunKind(kind) : [];
}

/** The select's options: value and "label (id@vN)". */
export function protocolOptions(kind: string): [JudgeProtocolId, string][] {
  return protocolChoices(kind).map((id) => [id, protocolTitle(id)]);
}

/** The generated fields the form still shows once the protocol controls are in place, for the chosen protocol. */
export function visibleFields(kind: string, fields: FormField[], protocol: string): FormField[] {
  if (!hasProtocol(kind)) return fields;
  return fields.filter((f) => !PROTOCOL_FIELD_NAMES.has(f.name) && (FIELDS_OF_PROTOCOL[f.name] === undefined || FIELDS_OF_PROTOCOL[f.name] === protocol));
}

/** The option controls a protocol has. */
export type ProtocolOptionField = "threshold" | "prmVariant" | "executeCode" | "timeLimitMs" | "cpuSeconds" | "memoryMb";
export const SANDBOX_FIELDS = ["timeLimitMs", "cpuSeconds", "memoryMb"] as const;
export type ProtocolValues = Record<ProtocolOptionField, string | boolean>;

export function protocolOptionFields(protocol: string, values: Pick<ProtocolValues, "executeCode">): ProtocolOptionField[] {
  if (protocol === "discriminative-prm") return ["threshold", "prmVariant"];
  if (protocol === "genprm") return values.executeCode === true ? ["executeCode", ...SANDBOX_FIELDS] : ["executeCode"];
  return [];
}

export const PRM_VARIANTS = PRM_VARIANT_IDS;

/** Bounds of a sandbox limit, read from the kind's schema as the server sends it. */
export interface Bounds {
  min?: number;
  max?: number;
  initial: string;
}

function sandboxProperties(schema: RunConfigSchema | undefined): Record<string, JsonSchemaProperty> {
  return schema?.properties.protocolOptions?.properties?.sandbox?.properties ?? {};
}

/** The starting values: the server's defaults (the threshold and variant from core, the sandbox limits from the schema). */
export function initialProtocolValues(schema: RunConfigSchema | undefined): ProtocolValues {
  const sandbox = sandboxProperties(schema);
  const limit = (name: string) => (sandbox[name]?.default === undefined ? "" : String(sandbox[name]!.default));
  return {
    threshold: String(DEFAULT_PRM_THRESHOLD_VALUE),
    prmVariant: PRM_VARIANT_IDS[0],
    executeCode: false,
    timeLimitMs: limit("timeLimitMs"),
    cpuSeconds: limit("cpuSeconds"),
    memoryMb: limit("memoryMb"),
  };
}

export function sandboxBounds(schema: RunConfigSchema | undefined, name: (typeof SANDBOX_FIELDS)[number]): Bounds {
  const property = sandboxProperties(schema)[name];
  return { min: property?.minimum, max: property?.maximum, initial: property?.default === undefined ? "" : String(property.default) };
}

/** Where a field's error points, as the form labels it. */
export const PROTOCOL_FIELD_LABELS: Readonly<Record<ProtocolOptionField, string>> = {
  threshold: "Threshold",
  prmVariant: "PRM variant",
  executeCode: "Execute code blocks in a sandbox",
  timeLimitMs: "Sandbox time limit (ms)",
  cpuSeconds: "Sandbox CPU seconds",
  memoryMb: "Sandbox memory (MB)",
};

function wholeNumber(name: ProtocolOptionField, raw: string | boolean): number {
  const text = String(raw).trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) throw new FieldError(`protocolOptions.${name}`, `"${text}" is not a number`);
  if (!Number.isInteger(value)) throw new FieldError(`protocolOptions.${name}`, `${text} is not a whole number`);
  return value;
}

/**
 * `protocol` and `protocolOptions` as `run.launch` takes them: only the options the
 * chosen protocol reads (the server's defaults apply to the rest); nothing for kinds
 * without a judge protocol. Values that cannot be read name their field.
 */
export function protocolConfig(kind: string, protocol: string, values: ProtocolValues): { protocol?: JudgeProtocolId; protocolOptions?: Record<string, unknown> } {
  if (!hasProtocol(kind)) return {};
  if (!isJudgeProtocolId(protocol) || !protocolChoices(kind).includes(protocol)) {
    throw new FieldError("protocol", `"${protocol}" is not a protocol a ${kind.replaceAll("_", "-")} run can use`);
  }
  if (protocol === "discriminative-prm") {
    const text = String(values.threshold).trim();
    const threshold = Number(text);
    if (text === "" || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
      throw new FieldError("protocolOptions.threshold", `"${text}" is not a probability between 0 and 1`);
    }
    if (!(PRM_VARIANT_IDS as readonly string[]).includes(String(values.prmVariant))) {
      throw new FieldError("protocolOptions.prmVariant", `"${String(values.prmVariant)}" is not one of ${PRM_VARIANT_IDS.join(", ")}`);
    }
    return { protocol, protocolOptions: { threshold, prmVariant: values.prmVariant } };
  }
  if (protocol === "genprm") {
    if (values.executeCode !== true) return { protocol, protocolOptions: { executeCode: false } };
    const sandbox = Object.fromEntries(SANDBOX_FIELDS.map((name) => [name, wholeNumber(name, values[name])]));
    return { protocol, protocolOptions: { executeCode: true, sandbox } };
  }
  return { protocol, protocolOptions: {} };
}

/**
 * What the form says next to the protocol when the chosen judge endpoint does not
 * declare it (the server refuses such a launch too); null when it does, or no endpoint
 * is chosen yet.
 */
export function endpointProtocolWarning(endpoint: { name: string; protocols: string[] } | undefined, protocol: string): string | null {
  if (!endpoint || !isJudgeProtocolId(protocol) || endpoint.protocols.includes(protocol)) return null;
  const speaks = endpoint.protocols.length ? protocolLabels(endpoint.protocols).join(", ") : "none";
  return `The endpoint "${endpoint.name}" does not declare ${JUDGE_PROTOCOLS[protocol].label} (${protocol}); it speaks: ${speaks}. ${JUDGE_PROTOCOLS[protocol].label} needs ${SERVER_API_NEEDS[JUDGE_PROTOCOLS[protocol].api]}. Pick another endpoint or protocol, or declare it on the endpoint (Endpoints page) if its server supports it.`;
}

/** The judge endpoint field's name in every protocol kind's configuration. */
export const JUDGE_ENDPOINT_FIELD = "judgeEndpoint";
