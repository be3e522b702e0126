// `prisma generate` looks for a native schema engine it never calls; pointing it at
// node keeps generate offline. Migrations go through src/migrations (wasm engine).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../../prisma/schema.prisma",
});
