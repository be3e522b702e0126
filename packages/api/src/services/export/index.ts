/** The export services a host outside the API calls directly (the command line). */
export { listExportFiles } from "./files";
