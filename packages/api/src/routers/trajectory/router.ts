import { createRouter } from "../../trpc";
import { get } from "./get";
import { inspect } from "./inspect";
import { list } from "./list";

export const trajectoryRouter = createRouter({ list, get, inspect });
