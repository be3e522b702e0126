import { checkLaunch } from "../../services/run/launch";
import { researchManageProcedure } from "../../trpc";
import { launchRunInput } from "./launch";

/** Checks a launch as `run.launch` would (the dry-run path), storing nothing: valid, or the first refusal with its field. */
export const validate = researchManageProcedure.input(launchRunInput).query(({ ctx, input }) => checkLaunch({ ...ctx, input }));
