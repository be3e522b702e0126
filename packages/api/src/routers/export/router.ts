import { createRouter } from "../../trpc";
import { list } from "./list";
import { sources } from "./sources";
import { start } from "./start";

export const exportRouter = createRouter({ start, list, sources });
