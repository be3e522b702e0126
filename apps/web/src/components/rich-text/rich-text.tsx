import type { ReactNode } from "react";
import Markdown, { type Components, type Options } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import {
  rehypeImagesAsLinks,
  rehypeKatex,
  rehypeRawAsText,
  remarkDisplayMath,
  safeUrlTransform,
  sanitizeSchema,
} from "./plugins";
import { normalizeMathDelimiters } from "./preprocess";

/** What a "raw / rendered" switch toggles between. */
export type RichTextMode = "rendered" | "raw";
export const RICH_TEXT_MODES: readonly RichTextMode[] = ["rendered", "raw"];

export interface PlainTextProps {
  text: string;
  /** Render as a `<span>` that sits inside a line, instead of a `<div>`. */
  inline?: boolean;
  className?: string;
}

export interface RichTextProps extends PlainTextProps {
  /** "raw" shows the text exactly as the model wrote it (see PlainText). */
  mode?: RichTextMode;
}

const REMARK_PLUGINS: NonNullable<Options["remarkPlugins"]> = [
  // Models write "~5 minutes" for "about"; single tildes must not strike through.
  [remarkGfm, { singleTilde: false }],
  remarkMath,
  remarkDisplayMath,
];

// Order matters: see plugins.ts. No rehype-raw, ever: HTML in the text stays text.
const REHYPE_PLUGINS: NonNullable<Options["rehypePlugins"]> = [
  rehypeRawAsText,
  rehypeImagesAsLinks,
  [rehypeSanitize, sanitizeSchema],
  rehypeKatex,
];

function SafeLink({ href, children }: { href?: string; children?: ReactNode }) {
  if (!href) return <span>{children}</span>;
  if (href.startsWith("#")) return <a href={href}>{children}</a>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow ugc">
      {children}
    </a>
  );
}

const BLOCK_COMPONENTS: Components = {
  a: ({ href, children }) => <SafeLink href={href}>{children}</SafeLink>,
};

const INLINE_COMPONENTS: Components = {
  ...BLOCK_COMPONENTS,
  // A <p> inside the caller's line (a table cell, a heading) is invalid HTML;
  // the space keeps two paragraphs from running into one word.
  p: ({ children }) => <>{children} </>,
};

// Tailwind's preflight strips list bullets, heading sizes and margins; give the
// Markdown elements back a compact look without a typography plugin.
const MARKDOWN_CLASSES = [
  "break-words",
  "[&_p]:my-2 [&_p:first-child]:mt-0 [&_p:last-child]:mb-0",
  "[&_ul]:my-2 [&_ul]:list-disc [&_ul]:pl-6 [&_ol]:my-2 [&_ol]:list-decimal [&_ol]:pl-6 [&_li]:my-0.5",
  "[&_h1]:my-2 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:my-2 [&_h2]:text-base [&_h2]:font-semibold",
  "[&_h3]:my-2 [&_h3]:font-semibold [&_h4]:font-semibold",
  "[&_a]:text-blue-700 [&_a]:underline",
  "[&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.9em]",
  "[&_pre]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded [&_pre]:bg-slate-100 [&_pre]:p-2 [&_pre_code]:p-0",
  "[&_blockquote]:my-2 [&_blockquote]:border-l-2 [&_blockquote]:border-slate-300 [&_blockquote]:pl-3 [&_blockquote]:text-slate-600",
  "[&_table]:my-2 [&_table]:border-collapse [&_td]:border [&_td]:border-slate-200 [&_td]:px-2 [&_th]:border [&_th]:border-slate-200 [&_th]:px-2",
  "[&_hr]:my-3 [&_hr]:border-slate-200",
  // Wide equations scroll on their own instead of widening the page.
  "[&_.katex-display]:my-2 [&_.katex-display]:overflow-x-auto [&_.katex-display]:overflow-y-hidden [&_.katex-display]:py-1",
].join(" ");

function cx(...classes: Array<string | undefined>): string {
  return classes.filter(Boolean).join(" ");
}

/** The text verbatim, whitespace and line breaks kept: the "raw" view and the fallback. */
export function PlainText({ text, inline = false, className }: PlainTextProps) {
  const Root = inline ? "span" : "div";
  return <Root className={cx("whitespace-pre-wrap break-words", className)}>{text}</Root>;
}

/**
 * Untrusted model text (problems, chain-of-thought chunks, judge rationales)
 * as Markdown with LaTeX math. Uses no hooks, so it works in server and client
 * components alike.
 */
export function RichText({ text, inline = false, className, mode = "rendered" }: RichTextProps) {
  if (mode === "raw") return <PlainText text={text} inline={inline} className={className} />;
  let content: ReactNode;
  try {
    // Called as a function, not rendered as <Markdown>, so that a failure on
    // some unforeseen input lands in this catch and not in an error boundary.
    content = Markdown({
      children: normalizeMathDelimiters(text),
      remarkPlugins: REMARK_PLUGINS,
      rehypePlugins: REHYPE_PLUGINS,
      urlTransform: safeUrlTransform,
      components: inline ? INLINE_COMPONENTS : BLOCK_COMPONENTS,
    });
  } catch {
    return <PlainText text={text} inline={inline} className={className} />;
  }
  const Root = inline ? "span" : "div";
  return <Root className={cx(MARKDOWN_CLASSES, className)}>{content}</Root>;
}
