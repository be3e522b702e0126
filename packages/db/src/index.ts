export { createDb, getDb, type Db } from "./client";
export * from "./generated/prisma/client";
