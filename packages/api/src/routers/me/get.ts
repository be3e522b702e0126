import { viewerProcedure } from "../../trpc";

export const get = viewerProcedure.query(({ ctx }) => ctx.user);
