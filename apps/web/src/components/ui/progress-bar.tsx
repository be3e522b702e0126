export function ProgressBar({ done, total, label }: { done: number; total: number; label: string }) {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      className="h-2 w-full overflow-hidden rounded bg-slate-200"
    >
      <div className="h-full bg-blue-600 transition-[width]" style={{ width: `${(share * 100).toFixed(1)}%` }} />
    </div>
  );
}
