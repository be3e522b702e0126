import { createRouter } from "../../trpc";
import { list } from "./list";
import { preview } from "./preview";
import { processbench } from "./processbench";
import { report } from "./report";
import { start } from "./start";
import { startBatchOutput } from "./start-batch-output";

export const importRouter = createRouter({ processbench, preview, start, startBatchOutput, list, report });
