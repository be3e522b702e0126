export * from "./queue/queue";
export * from "./runs/run-state";
export * from "./pipelines/import-processbench/submit";
export * from "./pipelines/import-processbench/handle";
export * from "./worker/start-worker";
