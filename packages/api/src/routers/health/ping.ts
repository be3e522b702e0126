import { pingDatabase } from "../../services/health/ping";
import { publicProcedure } from "../../trpc";

/** Anyone may ask: the API is up and reaches its database. */
export const ping = publicProcedure.query(({ ctx }) => pingDatabase(ctx));
