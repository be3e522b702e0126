export * from "./model";
export * from "./tokens";
export * from "./world";
export * from "./models";
export * from "./server";
export * from "./run-batch";

import { createSimModels } from "./models";

/** The models `stepwiser sim-cluster` and `npm start` serve by default. */
export function createDefaultSimModels() {
  return createSimModels();
}
