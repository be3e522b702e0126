export * from "./annotation-cost";
