import { createRouter } from "../../trpc";
import { processbench } from "./processbench";

export const importRouter = createRouter({ processbench });
