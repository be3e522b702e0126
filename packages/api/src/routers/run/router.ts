import { createRouter } from "../../trpc";
import { cancel } from "./cancel";
import { cancelMany } from "./cancel-many";
import { confidence } from "./confidence";
import { failures } from "./failures";
import { filterOptions } from "./filter-options";
import { get } from "./get";
import { launch } from "./launch";
import { list } from "./list";
import { plan } from "./plan";
import { progress } from "./progress";
import { relabel } from "./relabel";
import { resume } from "./resume";
import { results } from "./results";
import { schemas } from "./schemas";
import { update } from "./update";
import { validate } from "./validate";

export const runRouter = createRouter({ get, list, schemas, progress, failures, confidence, results, launch, cancel, cancelMany, filterOptions, resume, relabel, update, validate, plan });
