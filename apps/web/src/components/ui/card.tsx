import type { ComponentProps, ElementType, ReactNode } from "react";
import { cx } from "./cx";

const PADDING = { none: "", sm: "p-3", md: "p-4" } as const;

export interface CardStyle {
  /** Inner space: `md` (p-4, the default), `sm` (p-3) or `none` (a table fills the card). */
  padding?: keyof typeof PADDING;
  /** Border colour (and ring) in place of the default slate one: an active, chosen or failing item. */
  border?: string;
}

/** The card look: white, rounded, bordered, a light shadow. For elements that are not a `Card` (a scrolling table box). */
export function cardClass({ padding = "md", border = "border-slate-200" }: CardStyle = {}, className?: string): string {
  return cx("rounded-lg border bg-white shadow-sm", border, PADDING[padding], className);
}

type CardProps<T extends ElementType> = CardStyle & { as?: T; className?: string } & Omit<ComponentProps<T>, "as" | "className">;

/** A white card; `as` makes it the element it stands for (section, form, figure, details, li…). */
export function Card<T extends ElementType = "div">({ as, padding, border, className, ...rest }: CardProps<T>) {
  const Element: ElementType = as ?? "div";
  return <Element className={cardClass({ padding, border }, className)} {...rest} />;
}

/** A card's heading: small and semibold. */
export function CardTitle({ as: Heading = "h2", className, ...rest }: { as?: "h2" | "h3" } & ComponentProps<"h2">) {
  return <Heading className={cx("text-sm font-semibold", className)} {...rest} />;
}

/** Title, a short grey description on the same line, and anything to its right (pickers, actions). */
export function CardHeader({ title, titleId, description, children }: { title: ReactNode; titleId?: string; description?: ReactNode; children?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
      <CardTitle id={titleId}>{title}</CardTitle>
      {description && <span className="text-xs text-slate-500">{description}</span>}
      {children && <div className="ml-auto">{children}</div>}
    </div>
  );
}
