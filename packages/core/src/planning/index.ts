export * from "./annotate-cost";
export * from "./storage-footprint";
