import { createRouter } from "../../trpc";
import { cancel } from "./cancel";
import { confidence } from "./confidence";
import { failures } from "./failures";
import { get } from "./get";
import { launch } from "./launch";
import { list } from "./list";
import { progress } from "./progress";
import { relabel } from "./relabel";
import { resume } from "./resume";
import { results } from "./results";
import { schemas } from "./schemas";
import { update } from "./update";

export const runRouter = createRouter({ get, list, schemas, progress, failures, confidence, results, launch, cancel, resume, relabel, update });
