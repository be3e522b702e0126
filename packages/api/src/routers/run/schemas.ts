import { z } from "zod";
import { launchableRunSchemas } from "../../services/run/schemas";
import { researchReadProcedure } from "../../trpc";

/** The input JSON Schema of every launchable run kind's configuration, from the schemas the worker validates with. */
export const schemas = researchReadProcedure.input(z.object({}).optional()).query(() => launchableRunSchemas());
