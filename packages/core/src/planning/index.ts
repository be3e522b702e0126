export * from "./annotate-cost";
export * from "./storage-footprint";
export * from "./judge-cost";
