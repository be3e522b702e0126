export * from "./checkpoints";
export * from "./disagreements";
export * from "./verifier-scaling";
export * from "./three-way";
