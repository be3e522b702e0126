export { createDb, getDb, type Db } from "./client";
export * from "./generated/prisma/client";
export { DB_LABEL_RULES, dbLabelRule } from "./label-rules";
