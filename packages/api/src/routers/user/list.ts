import { listUsers } from "../../services/user/list";
import { userAdminProcedure } from "../../trpc";

/** Every account, oldest first, with its role. */
export const list = userAdminProcedure.query(({ ctx }) => listUsers(ctx));
