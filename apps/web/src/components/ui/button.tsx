import Link from "next/link";
import type { ComponentProps } from "react";
import { cx } from "./cx";

const VARIANTS = {
  /** The page's main action. */
  primary: "rounded bg-blue-600 font-medium text-white hover:bg-blue-700",
  /** A main action in forms that create things (users, tokens, endpoints, imports). */
  dark: "rounded bg-slate-900 font-medium text-white hover:bg-slate-800",
  /** Every other action. */
  secondary: "rounded border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  /** An outlined action in the primary colour (resume, annotate). */
  accent: "rounded border border-blue-300 bg-white text-blue-700 hover:bg-blue-50",
  /** Cancels, revokes or deletes. */
  danger: "rounded border border-red-300 bg-white text-red-700 hover:bg-red-50",
  /** Reads like a link. */
  link: "text-blue-700 hover:underline",
  /** A quiet link-like action (help toggles, close). */
  subtle: "text-slate-600 hover:underline",
} as const;

const SIZES = { sm: "px-2 py-1", md: "px-3 py-1.5 text-sm", lg: "px-4 py-2 text-sm" } as const;

export type ButtonVariant = keyof typeof VARIANTS;
export type ButtonSize = keyof typeof SIZES;

export interface ButtonStyle {
  variant?: ButtonVariant;
  /** Ignored by the link-like variants, which have no padding. */
  size?: ButtonSize;
}

/** A button's classes, for elements that are not a `Button` or `ButtonLink` (a download `<a>`). */
export function buttonClass({ variant = "secondary", size = "md" }: ButtonStyle = {}, className?: string): string {
  const linkLike = variant === "link" || variant === "subtle";
  // A boxed label stays on one line: a squeezed row wraps around the button, never inside it.
  return cx(VARIANTS[variant], !linkLike && SIZES[size], !linkLike && "whitespace-nowrap", "disabled:opacity-50", className);
}

/** A `<button type="button">` unless told otherwise. */
export function Button({ variant, size, className, type = "button", ...rest }: ButtonStyle & ComponentProps<"button">) {
  return <button type={type} className={buttonClass({ variant, size }, className)} {...rest} />;
}

/** A Next.js link that looks like a button. */
export function ButtonLink({ variant, size, className, ...rest }: ButtonStyle & ComponentProps<typeof Link>) {
  return <Link className={buttonClass({ variant, size }, className)} {...rest} />;
}
