import { createRouter } from "../../trpc";
import { get } from "./get";
import { list } from "./list";

export const trajectoryRouter = createRouter({ list, get });
