import { createRouter } from "../../trpc";
import { create } from "./create";
import { disable, enable } from "./disable";
import { endSessions } from "./end-sessions";
import { list } from "./list";
import { resetPassword } from "./reset-password";
import { setRole } from "./set-role";

export const userRouter = createRouter({ list, create, setRole, disable, enable, resetPassword, endSessions });
