import { listWorkers } from "../../services/worker/list";
import { researchReadProcedure } from "../../trpc";

/** Viewer and up: the worker processes serving the job queues, newest heartbeat first, with the endpoint slots each holds now. */
export const list = researchReadProcedure.query(({ ctx }) => listWorkers(ctx));
