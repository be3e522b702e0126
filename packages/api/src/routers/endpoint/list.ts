import { listEndpoints } from "../../services/endpoint/list";
import { researchReadProcedure } from "../../trpc";

/** Every endpoint, policy first then judge then segmenter, by name; the key itself never leaves the server. */
export const list = researchReadProcedure.query(({ ctx }) => listEndpoints(ctx));
