/** The dataset services a host outside the API calls directly (the command line). */
export { countDatasetSolutions } from "./solution-count";
export { earlierImport } from "./earlier-import";
