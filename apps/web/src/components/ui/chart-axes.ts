/**
 * Room for the axes' labels. recharts draws its tick labels inside the SVG, which cuts off whatever falls
 * outside it: a y axis narrower than its labels, a negative margin, or the last x label (centred on the
 * plot's right edge) with too little margin beyond it.
 */
export const CHART_MARGIN = { top: 8, right: 24, bottom: 4, left: 4 } as const;

/** Tick labels at the charts' size. */
export const AXIS_TICK = { fontSize: 11 } as const;

/** A numeric y axis: small ticks, as wide as its longest label (recharts measures them). */
export const Y_AXIS = { tick: AXIS_TICK, width: "auto" } as const;
