import { createRouter } from "../../trpc";
import { get } from "./get";

export const meRouter = createRouter({ get });
