import { createRouter } from "../../trpc";
import { cancel } from "./cancel";
import { get } from "./get";
import { launch } from "./launch";
import { list } from "./list";
import { relabel } from "./relabel";
import { resume } from "./resume";

export const runRouter = createRouter({ get, list, launch, cancel, resume, relabel });
