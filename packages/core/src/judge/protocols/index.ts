export * from "./registry";
export * from "./logprobs";
export * from "./thinkprm";
export * from "./genprm";
export * from "./discriminative-prm";
export * from "./outcome";
export * from "./sampling";
