import type {} from "vitest";

// What the global setup hands to every test file through `inject`. Declared here, and
// imported by the test database helper, so every package that writes tests sees it.
declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}
