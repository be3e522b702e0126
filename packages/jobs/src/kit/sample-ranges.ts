/** The integers from `from` up to, not including, `to`. */
export function indices(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** Sorted sample indices cut into runs of consecutive ones: each run is one request with n and a seed. */
export function contiguousRanges(sorted: readonly number[]): number[][] {
  const ranges: number[][] = [];
  for (const value of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[last.length - 1] === value - 1) last.push(value);
    else ranges.push([value]);
  }
  return ranges;
}
