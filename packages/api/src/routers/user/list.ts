import { listUsers } from "../../services/user/list";
import { userAdminProcedure } from "../../trpc";

/** Every account, oldest first, with its role, whether it is disabled, and its live sessions and API tokens. */
export const list = userAdminProcedure.query(({ ctx }) => listUsers(ctx));
