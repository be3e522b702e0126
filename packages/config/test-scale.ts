/**
 * The size a scalable test runs at. `npm test` proves each property at the smallest
 * size that proves it ("default"); `pnpm bench test-scale` runs the same files at the
 * sizes they had before (STEPWISER_TEST_SCALE=full: 100k records, 1,400 solutions,
 * many kills) and records their summaries in docs/benchmarks/test-scale.md.
 */
export type TestScale = "default" | "full";

export function testScale(): TestScale {
  const value = process.env.STEPWISER_TEST_SCALE;
  if (value === undefined || value === "" || value === "default") return "default";
  if (value === "full") return "full";
  throw new Error(`STEPWISER_TEST_SCALE must be "default" or "full", not "${value}"`);
}

/** The value for the current scale: `atScale({ default: 1, full: 5 })`. */
export function atScale<T>(sizes: { default: T; full: T }): T {
  return sizes[testScale()];
}
