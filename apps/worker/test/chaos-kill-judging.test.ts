import { atScale } from "@stepwiser/config/test-scale";
import { inject } from "vitest";
import { describeKillSuite } from "./chaos-kill-suite";

describeKillSuite(["judge", "benchmark"], () => inject("postgresAdminUrl"), {
  killsPerKind: atScale({ default: 1, full: 5 }),
  problems: atScale({ default: 4, full: 12 }),
  timeScale: atScale({ default: 30, full: 10 }),
});
