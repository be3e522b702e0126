/** What an upload may hold is checked by the api's file services (shared by `POST /api/uploads` and the REST API's uploads). */
export { textUploadPieces, uploadPieces } from "@stepwiser/api";
