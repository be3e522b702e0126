export * from "./label";
export * from "./q-values";
export * from "./rules";
export * from "./solution-stats";
export * from "./stored-values";
export * from "./confidence";
export * from "./mixture-prior";
export * from "./presets";
