import type { SimModel } from "../model";

export const SIM_MODEL_KINDS = ["policy", "judge", "segmenter", "arith-checker", "thinkprm", "genprm", "pooling-prm", "outcome-rm"] as const;
export type SimModelKind = (typeof SIM_MODEL_KINDS)[number];

/** A simulated model that also says what it is and the settings it runs with (defaults filled in). */
export interface ConfiguredSimModel<Kind extends SimModelKind = SimModelKind, Config = Readonly<Record<string, unknown>>> extends SimModel {
  readonly kind: Kind;
  readonly config: Config;
}
