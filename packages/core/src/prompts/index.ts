export * from "./template";
export * from "./self-segmenting-policy";
export * from "./chunk-segmenter";
export * from "./stepwiser-judge";
export * from "./processbench-critic";
export * from "./outcome";
export * from "./registry";
