import { requestLimitsFromEnv, type RequestLimits } from "./request-limits";

let fromEnv: RequestLimits | undefined;

/** The limits of this process, read from its environment once. */
export function defaultRequestLimits(): RequestLimits {
  fromEnv ??= requestLimitsFromEnv();
  return fromEnv;
}
