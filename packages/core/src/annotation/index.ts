export * from "./human-label";
export * from "./submission";
export * from "./selection";
export * from "./agreement";
export * from "./human-work";
