/** The run services a host outside the API calls directly (the command line). */
export { getRunState } from "./state";
export { updateRunDescription, type RunDescriptionUpdate } from "./update";
export { listRuns, type RunListInput } from "./list";
