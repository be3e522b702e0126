export * from "./registry";
export * from "./logprobs";
