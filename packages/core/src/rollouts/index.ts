export * from "./strategies";
