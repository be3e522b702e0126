/** The endpoint services without the tRPC layer, for hosts other than the API (the command line). */
export { listEndpoints } from "./list";
export { createEndpoint, type NewEndpoint } from "./create";
export { updateEndpoint, type EndpointChange } from "./update";
export { deleteEndpoint } from "./delete";
export { testEndpoint } from "./test";
export { findEndpointByName } from "./find-by-name";
export { apiKeySchema, endpointFields } from "./fields";
export type { SessionUser } from "../../auth/session-user";
