/** Roles in increasing order of power; each role may do everything the ones before it may. */
export const ROLES = ["viewer", "annotator", "researcher", "admin"] as const;
export type UserRole = (typeof ROLES)[number];

export function roleAtLeast(role: UserRole, minimum: UserRole): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export function isUserRole(value: unknown): value is UserRole {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
