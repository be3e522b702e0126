export * from "./endpoint";
