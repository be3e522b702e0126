import { createRouter } from "../../trpc";
import { create } from "./create";
import { list } from "./list";
import { revoke } from "./revoke";

/** Personal API tokens for scripts: `Authorization: Bearer sw_…` acts as their owner with the owner's current role. */
export const tokenRouter = createRouter({ create, list, revoke });
