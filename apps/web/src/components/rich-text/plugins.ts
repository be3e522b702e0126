import type { UrlTransform } from "react-markdown";
import { defaultSchema, type Options as SanitizeSchema } from "rehype-sanitize";
import { classList, textContent, type HastChild, type HastParent, type HastRoot } from "./hast";
import { renderMath } from "./katex-hast";

/**
 * The unified plugins around react-markdown's parse → remark-rehype core. The
 * order in RichText is the safety argument:
 *
 *   normalizeMathDelimiters → remark-gfm → remark-math → remarkDisplayMath
 *   → (remark-rehype) → rehypeRawAsText → rehypeImagesAsLinks
 *   → rehype-sanitize → rehypeKatex
 *
 * Sanitising runs on the tree built from the untrusted text, where math is
 * still just `<code class="language-math math-inline">` holding TeX as text.
 * KaTeX runs after it, so its generated markup (classes, inline styles, SVG)
 * does not need a schema loose enough to let the same things through from
 * the input; KaTeX with `trust: false` is what keeps the TeX itself harmless.
 */

interface MdastNode {
  type: string;
  children?: MdastNode[];
  position?: { start: { offset?: number } };
  data?: { hProperties?: Record<string, unknown> };
}

/**
 * The preprocessor writes display math as a one-line `$$…$$`, which
 * remark-math parses as inline math; show it as display math, as TeX would.
 */
export function remarkDisplayMath() {
  return (tree: MdastNode, file: { value: unknown }) => {
    const source = String(file.value);
    const visit = (node: MdastNode) => {
      if (node.type === "inlineMath") {
        const start = node.position?.start.offset;
        if (start !== undefined && source.startsWith("$$", start) && node.data?.hProperties) {
          node.data.hProperties.className = ["language-math", "math-display"];
        }
      }
      node.children?.forEach(visit);
    };
    visit(tree);
  };
}

function mapChildren(parent: HastParent, replace: (node: HastChild, parent: HastParent) => HastChild[] | undefined): void {
  const next: HastChild[] = [];
  for (const child of parent.children) {
    const replacement = replace(child, parent);
    if (replacement) {
      next.push(...replacement);
      continue;
    }
    if (child.type === "element") mapChildren(child, replace);
    next.push(child);
  }
  parent.children = next;
}

/**
 * Raw HTML from the text becomes visible text. react-markdown would do the
 * same after the plugins, but rehype-sanitize drops `raw` nodes first, and
 * when inspecting model output it matters that the model wrote `<script>`.
 */
export function rehypeRawAsText() {
  return (tree: HastRoot) =>
    mapChildren(tree, (node) => (node.type === "raw" ? [{ type: "text", value: node.value }] : undefined));
}

/**
 * Images become links: loading a URL the model chose would let a prompt
 * injection exfiltrate data through the query string just by being viewed.
 */
export function rehypeImagesAsLinks() {
  return (tree: HastRoot) =>
    mapChildren(tree, (node) => {
      if (node.type !== "element" || node.tagName !== "img") return undefined;
      const src = typeof node.properties.src === "string" ? node.properties.src : "";
      const alt = typeof node.properties.alt === "string" && node.properties.alt ? node.properties.alt : src;
      return [{ type: "element", tagName: "a", properties: { href: src }, children: [{ type: "text", value: `[image: ${alt}]` }] }];
    });
}

const SAFE_PROTOCOLS = ["http", "https", "mailto"];

/** GitHub's schema (rehype-sanitize's default), plus the classes remark-math marks math with, minus images. */
export const sanitizeSchema: SanitizeSchema = {
  ...defaultSchema,
  tagNames: (defaultSchema.tagNames ?? []).filter((tag) => tag !== "img" && tag !== "picture" && tag !== "source"),
  attributes: {
    ...defaultSchema.attributes,
    code: [["className", /^language-./, "math-inline", "math-display"]],
  },
  protocols: {
    ...defaultSchema.protocols,
    href: SAFE_PROTOCOLS,
    cite: ["http", "https"],
    src: ["http", "https"],
  },
};

/** Replaces the sanitised `code.language-math` elements with KaTeX's rendering. */
export function rehypeKatex() {
  return (tree: HastRoot) =>
    mapChildren(tree, (node) => {
      if (node.type !== "element") return undefined;
      // Math fences (`$$` on their own lines) arrive as pre > code.
      const code = node.tagName === "pre" && node.children.length === 1 ? node.children[0] : node;
      if (code?.type !== "element" || code.tagName !== "code") return undefined;
      const classes = classList(code);
      if (!classes.includes("language-math")) return undefined;
      return renderMath(textContent(code), classes.includes("math-display") || code !== node);
    });
}

/**
 * Only absolute http(s) and mailto links, and in-page fragments (GFM footnotes
 * link to them). Relative paths are dropped: a model has no business linking
 * into the app, where a GET may have side effects.
 */
export const safeUrlTransform: UrlTransform = (url) => {
  const trimmed = url.trim();
  if (trimmed.startsWith("#")) return trimmed;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  return scheme && SAFE_PROTOCOLS.includes(scheme) ? trimmed : undefined;
};

