import { createRouter } from "../../trpc";
import { ping } from "./ping";

export const healthRouter = createRouter({ ping });
