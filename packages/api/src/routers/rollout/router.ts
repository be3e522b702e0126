import { createRouter } from "../../trpc";
import { list } from "./list";

export const rolloutRouter = createRouter({ list });
