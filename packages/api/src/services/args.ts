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

/** A service that queues jobs also gets the job queue, opened lazily by the host. */
export interface QueueServiceArgs<Input> extends ServiceArgs<Input> {
  getQueue: () => Promise<JobQueue>;
}
