import { createRouter } from "../../trpc";
import { get } from "./get";
import { inspect } from "./inspect";
import { list } from "./list";
import { neighbors } from "./neighbors";

export const solutionRouter = createRouter({ list, neighbors, get, inspect });
