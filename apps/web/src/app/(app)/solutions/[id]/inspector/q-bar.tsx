export function QBar({ value, rollouts, correct }: { value: number | null; rollouts: number; correct: number }) {
  if (value === null) return <span className="text-xs text-slate-400">no Q</span>;
  return (
    <div className="w-28" title={rollouts ? `${correct} of ${rollouts} rollouts reached the answer` : "the solution's own outcome"}>
      <div className="flex justify-between text-xs">
        <span className="font-mono">Q {value.toFixed(2)}</span>
        <span className="text-slate-500">{rollouts ? `${correct}/${rollouts}` : "final"}</span>
      </div>
      <div className="h-1.5 w-full overflow-hidden rounded bg-slate-200">
        <div className="h-full bg-emerald-600" style={{ width: `${(value * 100).toFixed(0)}%` }} />
      </div>
    </div>
  );
}
