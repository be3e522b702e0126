export * from "./annotation-cost";
export * from "./storage-footprint";
