/** A judge run that answered for the whole solution, as the inspect service returns it. */
export interface InspectedSolutionJudgement {
  runId: string;
  label: string;
  judgeModel: string | null;
  protocol: string | null;
  promptTemplateId: string | null;
  predictedFirstError: number | null;
  score: number | null;
  output: string | null;
  samples: Array<{ index: number; text: string; reading: number | null; answer: string | null; truncated: boolean }>;
}

export interface SolutionJudgementView {
  runId: string;
  title: string;
  /** What the run asked with: protocol and template, as stored with it. */
  asked: string;
  prediction: string;
  /** "4 samples · 1 truncated · 1 unreadable", or null for a single sample. */
  tally: string | null;
  samples: Array<{ index: number; text: string; reading: string; truncated: boolean }>;
}

function firstErrorText(index: number | null): string {
  if (index === null) return "unparseable";
  return index < 0 ? "no error (-1)" : `first error at step ${index}`;
}

/**
 * Shapes solution-level judgements for the inspector: the prediction in words, the
 * template named, and each sample with what was read from it (a critic's vote, a
 * chain's first error, an outcome score). Runs stored before samples were kept show
 * their one answer as sample 0.
 */
export function solutionJudgementViews(judgements: readonly InspectedSolutionJudgement[]): SolutionJudgementView[] {
  return judgements.map((j) => {
    const critic = j.protocol === "processbench-critic";
    const samples = j.samples.length > 0 ? j.samples : j.output !== null ? [{ index: 0, text: j.output, reading: j.predictedFirstError, answer: null, truncated: false }] : [];
    const readingText = (reading: number | null) => (j.protocol === "outcome-pointwise" ? (reading === null ? "unparseable" : `score ${reading}`) : firstErrorText(reading));
    const truncated = samples.filter((s) => s.truncated).length;
    const unreadable = samples.filter((s) => !s.truncated && s.reading === null).length;
    const parts = [`${samples.length} samples`, truncated ? `${truncated} truncated` : null, unreadable ? `${unreadable} unparseable` : null].filter((p): p is string => p !== null);
    return {
      runId: j.runId,
      title: j.judgeModel ? `${j.label} · ${j.judgeModel}` : j.label,
      asked: [j.protocol, j.promptTemplateId].filter((p): p is string => p !== null).join(" · ") || "—",
      prediction: critic ? `${firstErrorText(j.predictedFirstError)}${samples.length > 1 ? " (most common answer)" : ""}` : j.score !== null ? `${firstErrorText(j.predictedFirstError)} · score ${j.score.toFixed(3)}` : firstErrorText(j.predictedFirstError),
      tally: samples.length > 1 || truncated > 0 ? parts.join(" · ") : null,
      samples: samples.map((s) => ({ index: s.index, text: s.text, reading: `${readingText(s.reading)}${critic && s.answer !== null && s.reading === null ? ` (answer "${s.answer}")` : ""}`, truncated: s.truncated })),
    };
  });
}
