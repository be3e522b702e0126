import { endUserSessions } from "../../services/user/end-sessions";
import { userAdminProcedure } from "../../trpc";
import { userIdInput } from "./disable";

/** Signs an account out everywhere without disabling it; its API tokens keep working. */
export const endSessions = userAdminProcedure.input(userIdInput).mutation(({ ctx, input }) => endUserSessions({ ...ctx, input }));
