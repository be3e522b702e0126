import { publicProcedure } from "../../trpc";

export const ping = publicProcedure.query(async ({ ctx }) => {
  await ctx.db.$queryRaw`SELECT 1`;
  return { ok: true as const, time: new Date() };
});
