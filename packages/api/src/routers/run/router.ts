import { createRouter } from "../../trpc";
import { get } from "./get";
import { list } from "./list";

export const runRouter = createRouter({ get, list });
