import { z } from "zod";

/** What one sandboxed code block may use: wall time, CPU time and memory (GenPRM's own limit is 5 s of wall time). */
export const sandboxLimitsSchema = z.object({
  timeLimitMs: z.number().int().min(100).max(60_000).default(5000),
  cpuSeconds: z.number().int().min(1).max(60).default(5),
  memoryMb: z.number().int().min(32).max(8192).default(512),
});
export type SandboxLimits = z.output<typeof sandboxLimitsSchema>;
