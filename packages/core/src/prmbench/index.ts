export * from "./items";
export * from "./score";
export * from "./predicted-labels";
export * from "./published";
