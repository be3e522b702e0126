import { Button } from "./button";
import { cx } from "./cx";

/** Pages needed for `total` rows, at least one. */
export function pageCountOf(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/**
 * Previous / next over a server-paged list, and "Page x of y" (or "Page x"
 * when the count is unknown). Pages count from 1; `onPage` gets the new one.
 * `testId` names the buttons `<testId>-previous` and `<testId>-next`.
 */
export function Pager({ page, pageCount, hasNext, onPage, testId, className = "ml-auto" }: { page: number; pageCount: number | null; hasNext: boolean; onPage: (page: number) => void; testId?: string; className?: string }) {
  return (
    <nav aria-label="Pages" className={cx("flex items-center gap-3", className)}>
      <Button size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)} data-testid={testId && `${testId}-previous`}>
        Previous
      </Button>
      <span className="text-slate-600 tabular-nums">
        Page {page}
        {pageCount === null ? "" : ` of ${pageCount}`}
      </span>
      <Button size="sm" disabled={!hasNext} onClick={() => onPage(page + 1)} data-testid={testId && `${testId}-next`}>
        Next
      </Button>
    </nav>
  );
}
