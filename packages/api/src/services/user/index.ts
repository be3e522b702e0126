/** The user services a host outside the API calls directly (the command line, to know whom it acts as). */
export { actingCreatorId, actingUser } from "./acting-user";
