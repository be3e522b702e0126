import { createRouter } from "../../trpc";
import { create } from "./create";
import { remove } from "./delete";
import { list } from "./list";
import { metrics } from "./metrics";
import { test } from "./test";
import { update } from "./update";

export const endpointRouter = createRouter({ list, create, update, delete: remove, test, metrics });
