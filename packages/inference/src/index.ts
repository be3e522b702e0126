export * from "./endpoint";
export * from "./client";
