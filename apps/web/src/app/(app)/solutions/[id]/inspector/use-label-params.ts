"use client";

import { DEFAULT_LABEL_RULES, type AbsQEvidence } from "@stepwiser/core";
import { useState } from "react";

export interface LabelParams {
  gamma: number;
  alpha: number;
  n: number;
  /** Abs-Q's evidence: each chunk's own prefix (the paper) or any later prefix too. */
  evidence: AbsQEvidence;
}

/** The label rules' parameters, starting at the paper's defaults; the sliders move them. */
export function useLabelParams() {
  return useState<LabelParams>({
    gamma: DEFAULT_LABEL_RULES["rel-ratio"].gamma,
    alpha: DEFAULT_LABEL_RULES["rel-effective"].alpha,
    n: DEFAULT_LABEL_RULES["rel-effective"].n,
    evidence: DEFAULT_LABEL_RULES["abs-q"].evidence,
  });
}
