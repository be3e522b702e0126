import type { UserRole } from "./roles";

/**
 * What a signed-in account may do, one name per kind of access. Every API
 * procedure and HTTP route declares exactly one of these (or "public").
 */
export const CAPABILITIES = [
  /** Their own profile and API tokens. */
  "account",
  /** Research data: datasets, solutions, runs, rollouts, comparisons, the endpoints list, workers, import and export lists, queue agreement. */
  "research.read",
  /** Launching and steering runs, imports and uploads, exports and their downloads, endpoint connection tests. */
  "research.manage",
  /** The list of annotation queues and a queue's dashboard; limited to member queues without "annotationQueues.all". */
  "annotationQueues.view",
  /** Claiming, labelling, skipping and undoing items; limited to member queues without "annotationQueues.all". */
  "annotationQueues.annotate",
  /** Creating and changing queues, their members, adjudication, item histories and label exports. */
  "annotationQueues.manage",
  /** Every queue, not only those the account is a member of. */
  "annotationQueues.all",
  /** Accounts and their roles, and other people's API tokens. */
  "users.manage",
  /** Creating, changing and deleting inference endpoints. */
  "endpoints.manage",
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * The access model. An annotator is an outside person: they see nothing of the
 * research data, only the queues they were added to and, within them, what
 * labelling needs.
 */
const ROLE_CAPABILITIES: Record<UserRole, ReadonlySet<Capability>> = {
  viewer: new Set<Capability>(["account", "research.read", "annotationQueues.view", "annotationQueues.all"]),
  annotator: new Set<Capability>(["account", "annotationQueues.view", "annotationQueues.annotate"]),
  researcher: new Set<Capability>(["account", "research.read", "research.manage", "annotationQueues.view", "annotationQueues.annotate", "annotationQueues.manage", "annotationQueues.all"]),
  admin: new Set<Capability>(CAPABILITIES),
};

export function can(role: UserRole, capability: Capability): boolean {
  return ROLE_CAPABILITIES[role].has(capability);
}

export function capabilitiesOf(role: UserRole): Capability[] {
  return CAPABILITIES.filter((capability) => can(role, capability));
}

/** What an API procedure or HTTP route requires: nothing, or one capability. */
export type Access = "public" | Capability;

/** Whether a caller (null = anonymous) passes an access declaration. */
export function allows(access: Access, role: UserRole | null): boolean {
  if (access === "public") return true;
  return role !== null && can(role, access);
}

/**
 * Whether the caller is limited to the queues they are a member of. Handlers
 * of queue procedures ask this after the tier check has let the caller in.
 */
export function limitedToMemberQueues(role: UserRole): boolean {
  return !can(role, "annotationQueues.all");
}

/** Roles the UI and error messages name for a capability. */
export function rolesWith(capability: Capability): UserRole[] {
  return (Object.keys(ROLE_CAPABILITIES) as UserRole[]).filter((role) => can(role, capability));
}
