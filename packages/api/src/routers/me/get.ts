import { accountProcedure } from "../../trpc";

export const get = accountProcedure.query(({ ctx }) => ctx.user);
