import { annotateHandler } from "../pipelines/annotate/handler";
import { benchmarkHandler } from "../pipelines/benchmark/handler";
import { bestOfNHandler } from "../pipelines/best-of-n/handler";
import { chunkResetHandler } from "../pipelines/chunk-reset/handler";
import { generateHandler } from "../pipelines/generate/handler";
import { judgeHandler } from "../pipelines/judge/handler";
import { segmentHandler } from "../pipelines/segment/handler";
import type { AnyRunKindHandler } from "./run-kind";

/** Every run kind the engine executes, by `Run.kind`. */
export const RUN_HANDLERS: ReadonlyMap<string, AnyRunKindHandler> = new Map<string, AnyRunKindHandler>([
  [annotateHandler.kind, annotateHandler],
  [benchmarkHandler.kind, benchmarkHandler],
  [bestOfNHandler.kind, bestOfNHandler],
  [chunkResetHandler.kind, chunkResetHandler],
  [generateHandler.kind, generateHandler],
  [judgeHandler.kind, judgeHandler],
  [segmentHandler.kind, segmentHandler],
]);
