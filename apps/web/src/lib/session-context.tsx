"use client";

import type { SessionUser } from "@stepwiser/api";
import { can, type Capability } from "@stepwiser/core";
import { createContext, useContext, type ReactNode } from "react";

const SessionContext = createContext<SessionUser | null>(null);

/** Hands the signed-in user (resolved on the server) to client components. */
export function SessionProvider({ user, children }: { user: SessionUser; children: ReactNode }) {
  return <SessionContext.Provider value={user}>{children}</SessionContext.Provider>;
}

export function useSessionUser(): SessionUser {
  const user = useContext(SessionContext);
  if (!user) throw new Error("useSessionUser needs a SessionProvider above it");
  return user;
}

/** Hides controls the server would refuse anyway; the API enforces capabilities on its own. */
export function useCan(capability: Capability): boolean {
  return can(useSessionUser().role, capability);
}
