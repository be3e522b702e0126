import type { Db } from "@stepwiser/db";
import type { JobQueue } from "@stepwiser/jobs";
import type { Credential } from "../auth/caller";
import type { SessionUser } from "../auth/session-user";

/** What every service works with: the database and the caller. */
export interface ServiceContext {
  db: Db;
  user: SessionUser;
  /** How the caller authenticated, when they came over HTTP (see `Context.credential`). */
  credential?: Credential | null;
}

/** A service's one argument: the context and the procedure's parsed input. */
export interface ServiceArgs<Input> extends ServiceContext {
  input: Input;
}

/**
 * The argument of a service that reads without needing to know who asks (who may read
 * is the procedure's tier's business, as for every service). Hosts without sign-in call
 * it too: the command line, following its own runs on a database that may hold no user yet.
 */
export interface ReadServiceArgs<Input> extends Omit<ServiceArgs<Input>, "user"> {
  /** The caller, when there is one; the read does not depend on it. */
  user?: SessionUser;
}

/** A service that queues jobs also gets the job queue, opened lazily by the host. */
export interface QueueServiceArgs<Input> extends ServiceArgs<Input> {
  getQueue: () => Promise<JobQueue>;
}
