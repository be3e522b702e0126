import { createRouter } from "../../trpc";
import { get } from "./get";
import { inspect } from "./inspect";
import { list } from "./list";
import { neighbors } from "./neighbors";

export const trajectoryRouter = createRouter({ list, neighbors, get, inspect });
