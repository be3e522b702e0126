/** The roles an account can hold. They are not ordered: each grants its own set of capabilities. */
export const ROLES = ["viewer", "annotator", "researcher", "admin"] as const;
export type UserRole = (typeof ROLES)[number];

export function isUserRole(value: unknown): value is UserRole {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
