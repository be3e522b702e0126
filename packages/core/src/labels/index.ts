export * from "./label";
export * from "./q-values";
export * from "./rules";
