export * from "./verdict";
export * from "./voting";
export * from "./solution";
export * from "./protocols";
