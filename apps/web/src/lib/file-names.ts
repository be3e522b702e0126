/** Upload and download file names: the api's (uploads and downloads are its file services', shared by the web routes and the REST API). */
export { attachmentDisposition, safeContentType, uploadFileName } from "@stepwiser/api";
