import type { ComponentProps } from "react";
import { cx } from "./cx";

/**
 * A name on one line, shortened with an ellipsis where its box is too narrow, and always its whole text in
 * the tooltip (`title`; pass one to say more, a judge's template beside its name). Give the box its width
 * (`max-w-72`, `w-28`); it is a block so that a width holds in a table cell and a flex row alike.
 */
export function Truncate({ text, title, className, ...rest }: { text: string; title?: string; className?: string } & Omit<ComponentProps<"span">, "children" | "title">) {
  return (
    <span className={cx("block min-w-0 truncate", className)} title={title ?? text} {...rest}>
      {text}
    </span>
  );
}
