import { userAdminProcedure } from "../../trpc";

export const list = userAdminProcedure.query(({ ctx }) =>
  ctx.db.user.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true, createdAt: true } }),
);
