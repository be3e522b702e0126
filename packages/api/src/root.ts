import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { annotationQueueRouter } from "./routers/annotation-queue/router";
import { auditRouter } from "./routers/audit/router";
import { compareRouter } from "./routers/compare/router";
import { datasetRouter } from "./routers/dataset/router";
import { endpointRouter } from "./routers/endpoint/router";
import { exportRouter } from "./routers/export/router";
import { healthRouter } from "./routers/health/router";
import { importRouter } from "./routers/import/router";
import { meRouter } from "./routers/me/router";
import { rolloutRouter } from "./routers/rollout/router";
import { runRouter } from "./routers/run/router";
import { tokenRouter } from "./routers/token/router";
import { solutionRouter } from "./routers/solution/router";
import { userRouter } from "./routers/user/router";
import { workerRouter } from "./routers/worker/router";
import { createRouter } from "./trpc";

export const appRouter = createRouter({
  health: healthRouter,
  me: meRouter,
  dataset: datasetRouter,
  solution: solutionRouter,
  run: runRouter,
  rollout: rolloutRouter,
  import: importRouter,
  user: userRouter,
  endpoint: endpointRouter,
  annotationQueue: annotationQueueRouter,
  compare: compareRouter,
  token: tokenRouter,
  export: exportRouter,
  worker: workerRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
