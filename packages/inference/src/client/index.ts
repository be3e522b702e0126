export * from "./errors";
export * from "./retry";
export * from "./transport";
export * from "./sse";
export * from "./endpoint-pool";
export * from "./accounting";
export * from "./inference-client";
export * from "./server-metrics";
