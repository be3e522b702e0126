import { createRouter } from "../../trpc";
import { list } from "./list";
import { preview } from "./preview";
import { processbench } from "./processbench";
import { start } from "./start";

export const importRouter = createRouter({ processbench, preview, start, list });
