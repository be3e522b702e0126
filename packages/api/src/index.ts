export { appRouter, type AppRouter, type RouterInputs, type RouterOutputs } from "./root";
export { createCallerFactory, type Access, type Context, type ProcedureMeta, type SessionUser } from "./trpc";
export { createContext, sessionUserFromHeaders, type ContextDeps } from "./context";
export { handleTrpcRequest } from "./http";
export { createAuth, authPool, authConfigFromEnv, getAuth, type Auth, type AuthConfig } from "./auth/auth";
export { createUserWithPassword, ensureAdminUser, generatePassword } from "./auth/users";
export { LAUNCHABLE_RUN_KINDS } from "./routers/run/launch";
export { runConfigJsonSchema } from "./routers/run/schemas";
