import { InputError, NotFoundError } from "@stepwiser/core";

/**
 * For `.catch`: a service's NotFoundError about something named on the command line is
 * bad input (exit 2), located at the argument that named it; any other error passes on.
 */
export function notFoundAt(field: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof NotFoundError) throw new InputError(error.message, { field });
    throw error;
  };
}
