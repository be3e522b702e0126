import { createRouter } from "../../trpc";
import { create } from "./create";
import { list } from "./list";
import { setRole } from "./set-role";

export const userRouter = createRouter({ list, create, setRole });
