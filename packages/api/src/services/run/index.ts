/** The run services a host outside the API calls directly (the command line). */
export { getRunState } from "./state";
export { updateRunAnnotations, type RunAnnotationsUpdate } from "./update";
