export { createDb, getDb, type Db } from "./client";
export * from "./generated/prisma/client";
export { STORED_SPELLINGS_MATCH_DATABASE } from "./label-rules";
export * from "./audit";
export * from "./human-work";
