export * from "./paragraphs";
export type { TextPosition } from "./text-position";
export type { ChunkLike } from "./chunk-like";
export * from "./segmentation-error";
export * from "./chunk-tags";
export * from "./reconstruct";
export * from "./segmenters";
export * from "./stats";
