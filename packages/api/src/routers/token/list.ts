import { accountProcedure } from "../../trpc";

/** The caller's tokens, revoked ones included, newest first; the hash never leaves the server. */
export const list = accountProcedure.query(({ ctx }) =>
  ctx.db.apiToken.findMany({
    where: { userId: ctx.user.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  }),
);
