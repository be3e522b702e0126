export * from "./endpoint";
export * from "./client";
export * from "./server-kind";
