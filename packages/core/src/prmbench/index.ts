export * from "./items";
export * from "./score";
