import { createRouter } from "../../trpc";
import { get } from "./get";
import { list } from "./list";
import { overview } from "./overview";

export const datasetRouter = createRouter({ list, get, overview });
