export * from "./human-label";
