export * from "./errors/input-error";
export * from "./chunks/paragraphs";
export * from "./processbench/record";
export * from "./processbench/parse-file";
export * from "./access/roles";
