import { adminProcedure } from "../../trpc";

export const list = adminProcedure.query(({ ctx }) =>
  ctx.db.user.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true, createdAt: true } }),
);
