// Local-machine concerns (embedded Postgres, data dir, demo files): used by the
// launcher, CLI, worker and tests, never by the web app's request path.
export * from "./embedded/postgres-server";
export * from "./embedded/local-database";
export * from "./seed/demo-files";
