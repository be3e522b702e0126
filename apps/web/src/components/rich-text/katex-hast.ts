import katex from "katex";
import type { HastChild, HastElement, HastProperties } from "./hast";
import { DOLLAR_MACRO } from "./preprocess";

/**
 * KaTeX rendering straight into hast, without rehype-katex.
 *
 * rehype-katex 7 pins its own KaTeX (0.16), whose class names (`.base`,
 * `.strut`, …) the app's KaTeX 0.19 stylesheet no longer styles; calling the
 * app's KaTeX keeps markup and CSS from the same version. KaTeX only returns
 * an HTML string, and no HTML parser is a direct dependency, so the string is
 * read by the small parser below. Its input is KaTeX's own serialiser output
 * (every attribute double-quoted, all text entity-escaped), not user HTML, and
 * the result still passes through tag and attribute allowlists so a KaTeX
 * feature we did not expect degrades to missing styling rather than to an
 * attribute the page did not vet.
 */

const KATEX_OPTIONS = {
  // Untrusted input: \href, \url, \includegraphics, \htmlData/Class/Id/Style
  // render as red error text instead of links, images or attributes.
  trust: false,
  strict: "ignore",
  throwOnError: false,
  output: "htmlAndMathml",
  // Bounds \rule, \kern and friends so a span cannot cover the page, and
  // macro expansion so a \def loop cannot hang the tab.
  maxSize: 10,
  maxExpand: 1000,
} as const;

const SVG_TAGS = new Set(["svg", "path", "line"]);
const MATHML_TAGS = new Set([
  "math",
  "semantics",
  "annotation",
  "mrow",
  "mi",
  "mn",
  "mo",
  "ms",
  "mtext",
  "mspace",
  "msup",
  "msub",
  "msubsup",
  "mfrac",
  "msqrt",
  "mroot",
  "mover",
  "munder",
  "munderover",
  "mtable",
  "mtr",
  "mtd",
  "mlabeledtr",
  "mstyle",
  "mpadded",
  "mphantom",
  "menclose",
  "merror",
]);
const ALLOWED_TAGS = new Set(["span", ...SVG_TAGS, ...MATHML_TAGS]);

/** Everything KaTeX 0.19 sets except `href`, `src` and `alt`, which only trusted commands emit. */
const ALLOWED_ATTRIBUTES = new Set([
  "class",
  "style",
  "title",
  "aria-hidden",
  // svg
  "xmlns",
  "width",
  "height",
  "viewBox",
  "preserveAspectRatio",
  "d",
  "x1",
  "x2",
  "y1",
  "y2",
  "stroke-width",
  // MathML
  "encoding",
  "display",
  "displaystyle",
  "scriptlevel",
  "mathvariant",
  "mathsize",
  "mathcolor",
  "mathbackground",
  "accent",
  "accentunder",
  "columnalign",
  "columnlines",
  "columnspacing",
  "rowlines",
  "rowspacing",
  "depth",
  "voffset",
  "fence",
  "separator",
  "stretchy",
  "largeop",
  "linebreak",
  "linethickness",
  "lspace",
  "rspace",
  "maxsize",
  "minsize",
  "notation",
  "valign",
]);

export interface MarkupReport {
  /** Tags and attributes the allowlists removed; tests use it to keep the lists complete. */
  dropped: string[];
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

class MarkupError extends Error {}

/**
 * Parses KaTeX's serialised markup into hast. Throws MarkupError on anything
 * outside that grammar; the caller then falls back to showing the TeX source.
 */
export function katexMarkupToHast(markup: string, report?: MarkupReport): HastChild[] {
  const root: HastElement = { type: "element", tagName: "#root", properties: {}, children: [] };
  // Elements the allowlist rejected are still parsed (to keep nesting right),
  // just never attached.
  const stack: Array<{ element: HastElement; kept: boolean }> = [{ element: root, kept: true }];
  const top = () => stack[stack.length - 1]!;
  let i = 0;

  while (i < markup.length) {
    if (markup[i] !== "<") {
      const end = markup.indexOf("<", i);
      const text = markup.slice(i, end === -1 ? markup.length : end);
      if (top().kept) top().element.children.push({ type: "text", value: decodeEntities(text) });
      i = end === -1 ? markup.length : end;
      continue;
    }

    if (markup[i + 1] === "/") {
      const close = /^<\/([A-Za-z][A-Za-z0-9-]*)>/.exec(markup.slice(i));
      if (!close || stack.length < 2 || top().element.tagName !== close[1]) throw new MarkupError("unbalanced markup");
      stack.pop();
      i += close[0].length;
      continue;
    }

    const open = /^<([A-Za-z][A-Za-z0-9-]*)/.exec(markup.slice(i));
    if (!open) throw new MarkupError("unexpected '<'");
    const tagName = open[1]!;
    i += open[0].length;
    const properties: HastProperties = {};
    let selfClosing = false;
    for (;;) {
      while (/\s/.test(markup[i] ?? "")) i++;
      if (markup.startsWith("/>", i)) {
        selfClosing = true;
        i += 2;
        break;
      }
      if (markup[i] === ">") {
        i++;
        break;
      }
      // KaTeX writes MathML classes as `class ="…"`, hence the optional spaces.
      const attribute = /^([^\s"'<>/=]+)\s*=\s*"([^"]*)"/.exec(markup.slice(i));
      if (!attribute) throw new MarkupError("malformed attribute");
      i += attribute[0].length;
      const name = attribute[1]!;
      const value = decodeEntities(attribute[2]!);
      if (!ALLOWED_ATTRIBUTES.has(name)) {
        report?.dropped.push(`${tagName}[${name}]`);
        continue;
      }
      if (name === "class") properties.className = value.split(/\s+/).filter(Boolean);
      else properties[name] = value;
    }

    const kept = top().kept && ALLOWED_TAGS.has(tagName);
    if (top().kept && !kept) report?.dropped.push(tagName);
    const element: HastElement = { type: "element", tagName, properties, children: [] };
    if (kept) top().element.children.push(element);
    if (!selfClosing) stack.push({ element, kept });
  }

  if (stack.length !== 1) throw new MarkupError("unclosed element");
  return root.children;
}

/** Undoes the preprocessor's dollar macro wherever the TeX source is shown as text. */
function withDollars(tex: string): string {
  return tex.replaceAll(`${DOLLAR_MACRO} `, () => "\\$");
}

/** The TeX source itself, for input KaTeX output we cannot read. */
function fallback(tex: string, displayMode: boolean): HastElement {
  return {
    type: "element",
    tagName: "code",
    properties: { className: ["math-fallback"] },
    children: [{ type: "text", value: displayMode ? `$$${withDollars(tex)}$$` : `$${withDollars(tex)}$` }],
  };
}

/** Renders TeX with KaTeX into hast nodes (a `.katex` span, or `.katex-display` in display mode). */
export function renderMath(tex: string, displayMode: boolean, report?: MarkupReport): HastChild[] {
  try {
    const markup = katex.renderToString(tex, {
      ...KATEX_OPTIONS,
      displayMode,
      // A fresh object per call: KaTeX writes \gdef definitions into it, which
      // would otherwise leak from one model's text into the next render.
      macros: { [DOLLAR_MACRO]: "\\$" },
    });
    // The markup repeats the source in MathML's <annotation> (what copy-paste
    // yields) and in error spans; the macro is plain text there, safe to swap.
    return katexMarkupToHast(withDollars(markup), report);
  } catch {
    return [fallback(tex, displayMode)];
  }
}
