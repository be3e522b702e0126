export * from "./strategies";
export * from "./text-policy";
