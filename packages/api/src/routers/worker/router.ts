import { createRouter } from "../../trpc";
import { list } from "./list";

export const workerRouter = createRouter({ list });
