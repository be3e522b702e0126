import { z } from "zod";
import { SIM_MODEL_KINDS, type ConfiguredSimModel, type SimModelKind } from "./kinds";
import { createArithChecker } from "./arith-checker";
import { createSimGenPrm } from "./genprm";
import { createSimJudge, SIM_JUDGE_PRESETS } from "./judge";
import { createSimMathPrm } from "./math-prm";
import { createSimOutcomeRm } from "./outcome-rm";
import { createSimThinkPrm } from "./thinkprm";
import { createSimPolicy } from "./policy";
import { createSimSegmenter } from "./segmenter";


/** The models a simulated cluster serves unless configured otherwise, in this order. */
export const DEFAULT_SIM_MODELS: ReadonlyArray<{ id: string; kind: SimModelKind }> = [
  { id: "sim-policy", kind: "policy" },
  ...Object.keys(SIM_JUDGE_PRESETS).map((id) => ({ id, kind: "judge" as const })),
  { id: "sim-segmenter", kind: "segmenter" },
  { id: "arith-checker", kind: "arith-checker" },
  { id: "sim-thinkprm", kind: "thinkprm" },
  { id: "sim-genprm", kind: "genprm" },
  { id: "sim-math-prm", kind: "pooling-prm" },
  { id: "sim-outcome-rm", kind: "outcome-rm" },
];

/**
 * Per model id: `false` to leave a default model out, or the settings that
 * differ from its defaults (a judge preset's id starts from the preset). An id
 * that is not a default adds a model and must say its `kind`. Settings are
 * checked by the kind's own schema, so a misspelt key is an error.
 *
 *   { "sim-policy": { "errorRate": 0.3 }, "sim-segmenter": false,
 *     "judge-collapsed": { "kind": "judge", "accuracy": 0.7, "positiveBias": 0.9 },
 *     "judge-no-division": { "kind": "judge", "suspiciousOf": ["division"] } }
 */
export const simModelsConfigSchema = z.record(
  z.string().trim().min(1),
  z.union([z.literal(false), z.looseObject({ kind: z.enum(SIM_MODEL_KINDS).optional() })]),
);
export type SimModelsConfig = z.input<typeof simModelsConfigSchema>;

export class SimModelsConfigError extends Error {
  override readonly name = "SimModelsConfigError";
}

const FACTORIES: Readonly<Record<SimModelKind, (config: Record<string, unknown> & { id: string }) => ConfiguredSimModel>> = {
  policy: createSimPolicy,
  judge: createSimJudge,
  segmenter: createSimSegmenter,
  "arith-checker": createArithChecker,
  thinkprm: createSimThinkPrm,
  genprm: createSimGenPrm,
  "pooling-prm": createSimMathPrm,
  "outcome-rm": createSimOutcomeRm,
};

/** One model of the given kind; `settings` as in `SimModelsConfig`, without `kind`. */
export function createSimModel(kind: SimModelKind, id: string, settings: Record<string, unknown> = {}): ConfiguredSimModel {
  if (settings.id !== undefined && settings.id !== id) throw new SimModelsConfigError(`sim model "${id}": the id is the key; do not set "id" to "${String(settings.id)}"`);
  try {
    return FACTORIES[kind]({ ...settings, id });
  } catch (error) {
    if (error instanceof z.ZodError) throw new SimModelsConfigError(`sim model "${id}" (${kind}): ${z.prettifyError(error)}`);
    throw error;
  }
}

/** The simulated models to serve: the default set, adjusted and extended by `config`. */
export function createSimModels(config: SimModelsConfig = {}): ConfiguredSimModel[] {
  const parsed = simModelsConfigSchema.safeParse(config);
  if (!parsed.success) throw new SimModelsConfigError(`sim models config: ${z.prettifyError(parsed.error)}`);
  const entries = parsed.data;
  const models: ConfiguredSimModel[] = [];
  for (const { id, kind } of DEFAULT_SIM_MODELS) {
    const entry = Object.hasOwn(entries, id) ? entries[id] : {};
    if (entry === false || entry === undefined) continue;
    const { kind: declared, ...settings } = entry;
    if (declared !== undefined && declared !== kind) throw new SimModelsConfigError(`sim model "${id}" is a ${kind}, not a ${declared}`);
    models.push(createSimModel(kind, id, settings));
  }
  const defaults = new Set(DEFAULT_SIM_MODELS.map((model) => model.id));
  for (const [id, entry] of Object.entries(entries)) {
    if (defaults.has(id) || entry === false) continue;
    const { kind, ...settings } = entry;
    if (kind === undefined) throw new SimModelsConfigError(`sim model "${id}" is not a default model; say its "kind" (${SIM_MODEL_KINDS.join(", ")})`);
    models.push(createSimModel(kind, id, settings));
  }
  return models;
}
