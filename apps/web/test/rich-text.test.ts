import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { normalizeMathDelimiters, PlainText, RichText, type RichTextProps } from "../src/components/rich-text";
import { katexMarkupToHast, renderMath, type MarkupReport } from "../src/components/rich-text/katex-hast";

// The Vitest config only collects *.test.ts, hence createElement instead of JSX.
const render = (text: string, props: Omit<RichTextProps, "text"> = {}) =>
  renderToStaticMarkup(createElement(RichText, { text, ...props }));

const katexCount = (html: string) => html.match(/class="katex"/g)?.length ?? 0;

/** Text nodes only, entities decoded: what a reader sees, MathML annotations included. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");
}

/**
 * React escapes `<` in text and `"` in attribute values, so in its output every
 * `<` opens a real tag and every attribute value is one `"…"` run.
 */
function tags(html: string): Array<{ name: string; attributes: Array<[string, string]> }> {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:="[^"]*")?)*)\s*\/?>/g)].map((m) => ({
    name: m[1]!.toLowerCase(),
    attributes: [...m[2]!.matchAll(/\s+([^\s=/>]+)(?:="([^"]*)")?/g)].map((a) => [a[1]!.toLowerCase(), a[2] ?? ""] as [string, string]),
  }));
}

function expectSafe(html: string) {
  // Every `<` in React's output starts a tag; make sure the tag parser saw them all.
  expect(tags(html)).toHaveLength(html.match(/<[a-zA-Z]/g)?.length ?? 0);
  for (const tag of tags(html)) {
    expect(["script", "iframe", "object", "embed", "img", "style", "form", "input", "base", "meta", "link"]).not.toContain(tag.name);
    for (const [name, value] of tag.attributes) {
      expect(name, `<${tag.name} ${name}>`).not.toMatch(/^on/);
      expect(name).not.toMatch(/^(srcdoc|formaction|xlink:href|src)$/);
      const decoded = value.replace(/&amp;/g, "&").replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)));
      expect(decoded.replace(/\s/g, "").toLowerCase()).not.toMatch(/javascript:|vbscript:|data:/);
      if (name === "href") expect(decoded).toMatch(/^(https?:|mailto:|#)/i);
    }
  }
}

describe("normalizeMathDelimiters", () => {
  it.each([
    ["\\(x^2\\)", "$x^2$"],
    ["\\[\\frac12\\]", "$$\\frac12$$"],
    ["so \\( a \\) and \\[ b \\] end", "so $ a $ and $$ b $$ end"],
    ["\\[\nx = 1\n\\]", "$$ x = 1 $$"],
    ["\\boxed{42}", "$\\boxed{42}$"],
    ["**\\boxed{$7455}**", "**$\\boxed{\\mdDollar 7455}$**"],
    ["$\\boxed{$8.00}$", "$\\boxed{\\mdDollar 8.00}$"],
    ["\\( \\$5 \\)", "$ \\mdDollar 5 $"],
    ["$50%$ and $x$", "$50\\%$ and $x$"],
    ["$\\$5$", "$\\mdDollar 5$"],
  ])("math: %j → %j", (input, output) => {
    expect(normalizeMathDelimiters(input)).toBe(output);
  });

  it.each([
    ["It costs $5 and $10 more", "It costs \\$5 and \\$10 more"],
    ["costs $3.50, so $3.50 \\times 2 = $7", "costs \\$3.50, so \\$3.50 \\times 2 = \\$7"],
    ["$80 / $20 = 4 rewards", "\\$80 / \\$20 = 4 rewards"],
    ["$5-$10 a day", "\\$5-\\$10 a day"],
    ["$5 and the rest 6$", "\\$5 and the rest 6\\$"],
    ["$ 5 or $ 6$", "\\$ 5 or \\$ 6\\$"],
    ["it is $10 and $x$ is 2", "it is \\$10 and $x$ is 2"],
    ["he earns 6000$ per month", "he earns 6000\\$ per month"],
    ["a $$ b", "a \\$\\$ b"],
    ["a lone $", "a lone \\$"],
  ])("currency: %j → %j", (input, output) => {
    expect(normalizeMathDelimiters(input)).toBe(output);
  });

  it("leaves code spans and fenced code alone", () => {
    const text = "`\\(x\\)` and ``$5 `$x$` `` and\n```\n$5 \\(y\\) \\boxed{1}\n```\n~~~\n$$\n~~~\nthen \\(z\\)";
    expect(normalizeMathDelimiters(text)).toBe(
      "`\\(x\\)` and ``$5 `$x$` `` and\n```\n$5 \\(y\\) \\boxed{1}\n```\n~~~\n$$\n~~~\nthen $z$",
    );
  });

  it("treats an unclosed fence as code to the end, like CommonMark", () => {
    expect(normalizeMathDelimiters("a $x$\n```js\n$5 and $6$")).toBe("a $x$\n```js\n$5 and $6$");
  });

  it("respects backslash escapes", () => {
    // `\\(` is an escaped backslash and a parenthesis; `\$` is a dollar the author escaped.
    expect(normalizeMathDelimiters("\\\\(x\\\\) costs \\$5")).toBe("\\\\(x\\\\) costs \\$5");
  });

  it("does not let a span cross a paragraph break", () => {
    expect(normalizeMathDelimiters("\\(a\n\nb\\) and $x\n\ny$")).toBe("\\(a\n\nb\\) and \\$x\n\ny\\$");
  });

  it("stays fast on adversarial input", () => {
    const started = performance.now();
    for (const unit of ["{$", "$5 ", "\\(", "`a``", "\\boxed{", "$$x"]) normalizeMathDelimiters(unit.repeat(40_000));
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("never leaves a `$$` that could open a math fence", () => {
    const out = normalizeMathDelimiters("$$\nx\n$$\n\n$$\nnever closed\n\nmore text");
    expect(out).toBe("$$ x $$\n\n\\$\\$\nnever closed\n\nmore text");
    for (const line of out.split("\n")) expect(line).not.toMatch(/^\s*\$\$\s*$/);
  });
});

describe("RichText: XSS payloads", () => {
  const payloads = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "$\\href{javascript:alert(1)}{x}$",
    "$\\htmlData{foo=bar}{x}$",
    "$\\url{javascript:alert(1)}$",
    "$\\includegraphics{https://evil.example/x.png}$",
    "$\\htmlClass{x}{y}$ $\\htmlId{x}{y}$ $\\htmlStyle{background:url(javascript:alert(1))}{y}$",
    "\\(\\href{javascript:alert(1)}{x}\\) and \\boxed{\\href{javascript:alert(1)}{x}}",
    '$\\color{red" onload="alert(1)}{x}$',
    '<iframe src="javascript:alert(1)"></iframe>',
    "<svg onload=alert(1)><circle r=5 /></svg>",
    "<details open ontoggle=alert(1)>x</details>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "text <b onmouseover=alert(1)>bold</b> more",
    "[a](JaVaScRiPt:alert(1)) [b](  javascript:alert(1)) [c](java&#x09;script:alert(1))",
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [e](vbscript:msgbox(1))",
    "<javascript:alert(1)> and <https://ok.example>",
    "![x](javascript:alert(1)) ![y](https://evil.example/pixel.png?secret=1)",
    "[ref]\n\n[ref]: javascript:alert(1)",
    '[t](https://ok.example "x\\" onmouseover=\\"alert(1)")',
  ];

  it.each(payloads)("%s", (payload) => {
    expectSafe(render(payload));
    expectSafe(render(payload, { inline: true }));
    expectSafe(render(payload, { mode: "raw" }));
  });

  it("shows raw HTML as text rather than dropping or running it", () => {
    const html = render("before <script>alert(1)</script> after");
    expect(visibleText(html)).toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<script");
  });

  it("turns \\href and friends into KaTeX error text, not links", () => {
    const html = render("$\\href{javascript:alert(1)}{x}$ $\\htmlData{foo=bar}{x}$");
    expect(html).not.toMatch(/<a\s/);
    expect(html).not.toContain("data-foo");
    expect(visibleText(html)).toContain("\\href");
  });

  it("keeps safe links, opening them in a new tab without referrer", () => {
    const html = render("[ok](https://example.com/a?b=1) and <mailto:x@example.com>");
    expect(html).toContain('href="https://example.com/a?b=1"');
    expect(html).toContain('rel="noopener noreferrer nofollow ugc"');
    expect(html).toContain('href="mailto:x@example.com"');
  });

  it("drops relative links and makes images plain links", () => {
    const html = render("[admin](/admin/delete) ![chart](https://example.com/c.png)");
    expect(html).not.toContain("/admin/delete");
    expect(html).not.toMatch(/<img/);
    expect(html).toContain('href="https://example.com/c.png"');
    expect(visibleText(html)).toContain("[image: chart]");
  });

  it("caps KaTeX sizes so a \\rule cannot cover the page", () => {
    const html = render("$\\rule{9999em}{9999em}$");
    const styles = tags(html).flatMap((t) => t.attributes.filter(([name]) => name === "style").map(([, value]) => value));
    expect(styles.join(";")).not.toContain("9999");
    expect(styles).toContain("border-right-width:10em;border-top-width:10em;bottom:0em");
  });

  it("survives a macro bomb", () => {
    const html = render("$\\def\\a{\\a\\a}\\a$");
    expect(html).toContain("katex-error");
  });
});

describe("RichText: math", () => {
  it.each(["$x^2$", "\\(x^2\\)", "\\[\\frac12\\]", "$$a$$", "\\boxed{42}", "the answer is $\\boxed{12}$"])("renders %s with KaTeX", (text) => {
    const html = render(text);
    expect(katexCount(html)).toBe(1);
    expect(html).not.toContain("katex-error");
    expectSafe(html);
  });

  it("renders \\[…\\] and $$…$$ as display math, the rest inline", () => {
    expect(render("\\[\\frac12\\]")).toContain('class="katex-display"');
    expect(render("a $$b$$ c")).toContain('class="katex-display"');
    expect(render("$x^2$")).not.toContain('class="katex-display"');
    expect(render("\\(x\\)")).not.toContain('class="katex-display"');
  });

  it("renders a display block spread over lines", () => {
    const html = render("We get\n\\[\nx = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\n\\]\nas usual.");
    expect(katexCount(html)).toBe(1);
    expect(html).toContain('class="katex-display"');
    expect(visibleText(html)).toContain("as usual.");
  });

  it("renders a literal dollar inside math, and copies it back as \\$", () => {
    const html = render("\\[ 5 \\times \\$30 = \\$150 \\]");
    expect(html).not.toContain("katex-error");
    expect(html).toContain('<annotation encoding="application/x-tex">5 \\times \\$30 = \\$150</annotation>');
    expect(html).not.toContain("mdDollar");
  });

  it("keeps $ literal inside code", () => {
    const html = render("Use `$5 and $x$` or\n\n```\n\\(y\\) costs $5\n```");
    expect(katexCount(html)).toBe(0);
    expect(html).toContain("<code>$5 and $x$</code>");
    expect(html).toContain("\\(y\\) costs $5");
  });

  it("shows broken TeX as a KaTeX error, not an exception", () => {
    expect(render("$\\frac{1}$ and $x^^2$").match(/class="katex-error"/g)).toHaveLength(2);
  });

  it("leaves a span with an unclosed brace as text (its `$` sits inside the group)", () => {
    expect(katexCount(render("$\\frac{1$"))).toBe(0);
  });

  it("does not leak \\gdef from one render into the next", () => {
    render("$\\gdef\\leak{LEAKED}\\leak$");
    expect(visibleText(render("$\\leak$"))).not.toContain("LEAKED");
  });
});

describe("RichText: currency", () => {
  it.each([
    ["It costs $5 and $10 more", ["$5", "$10"]],
    ["costs $3.50, so $3.50 \\times 2 = $7", ["$3.50", "$7"]],
    ["He spent $43, used $4 of rewards: $43 - $4 = $39.", ["$43 - $4 = $39"]],
    ["Between $5-$10 per hour", ["$5-$10"]],
  ])("%s stays text", (text, shown) => {
    const html = render(text);
    expect(katexCount(html)).toBe(0);
    for (const s of shown) expect(visibleText(html)).toContain(s);
  });

  it("renders math next to prices", () => {
    const html = render("The refund is $2,800. The answer is $\\boxed{2800}$.");
    expect(katexCount(html)).toBe(1);
    expect(visibleText(html)).toContain("The refund is $2,800.");
  });

  // Real paragraphs from packages/db/seed/processbench/gsm8k.json.
  const prices: Array<[string, string]> = [
    [
      "gsm8k-2",
      "First, let's calculate the total cost of the milk that Mr. Marcellus bought: Cost per gallon = $3.5, Total gallons purchased = 4000. Total cost = Cost per gallon * Total gallons purchased = $3.5 * 4000 = $14,000.",
    ],
    [
      "gsm8k-4",
      "The customer spent $80 on their last shopping trip. For every $20 spent, they get $1 off their next purchase. First, we calculate the rewards from the last trip: $80 / $20 = 4 rewards. The value of these rewards is 4 * $1 = $4.",
    ],
    [
      "gsm8k-6",
      "On the other hand, if Jackie hires the accountant, she will pay a flat fee of $90. Now, let's compare the two options. We subtract the cost of hiring the accountant from the lost income of doing the taxes herself: $105 (lost income) - $90 (accountant's fee) = $15.",
    ],
    [
      "gsm8k-21",
      "Finally, add up the earnings from all tasks to get the total amount Jason earned. Total earnings = $3.00 (dishwasher) + $3.00 (laundry) + $1.50 (trash) + $1.50 (room). Total earnings = $8.00.",
    ],
    [
      "gsm8k-38",
      "Now, let's add up the total cost of all the items:\n- Total cost of bacon = $10\n- Total cost of chicken = $24\n- Total cost of strawberries = $12\n- Total cost of apples = $14",
    ],
  ];

  it.each(prices)("%s: dollar amounts stay text", (_id, text) => {
    const html = render(text);
    expect(katexCount(html)).toBe(0);
    expect(visibleText(html).split("$").length).toBe(text.split("$").length);
  });

  const mixed: Array<[string, string, number]> = [
    ["gsm8k-2", "Therefore, Mr. Marcellus got a refund of $2,800 for the unsellable milk. The answer is $\\boxed{2800}$.", 1],
    ["gsm8k-5", "So, Judy makes **\\boxed{$7455}** in one week.", 1],
    ["gsm8k-17", "Therefore, the desk costs Carmen $400. \\boxed{$400}", 1],
    ["gsm8k-21", "So, Jason earned a total of $\\boxed{$8.00}$ in a two-week period.", 1],
    ["gsm8k-24", "First, calculate the weekly earnings. Gerald earns $30 each day. Assuming a standard workweek of 5 days: \\[ \\text{Weekly earnings} = 5 \\times \\$30 = \\$150 \\]", 1],
    ["gsm8k-33", "To calculate the total cost, we multiply 24 by 12: 24 x 12 = 288. So, Mario needs to spend $\\boxed{\\$288.00}$ to buy snowshoes for all his dogs.", 1],
    [
      "gsm8k-109",
      "Finally, we add the costs from both phases together to get the total cost of the research. The total cost is $\\(100,000\\) + $\\(1,500,000\\) = $\\(1,600,000\\).",
      3,
    ],
    [
      "gsm8k-70",
      "James wins by 10 minutes, which means his total time is $150 + 10 = 160$ minutes. To find out how long it took James to do the run, we subtract his total time from his win time: $160 - 36 - 65 = 59$ minutes. The answer is: $\\boxed{59}$",
      3,
    ],
  ];

  it.each(mixed)("%s: prices stay text, LaTeX renders", (_id, text, math) => {
    const html = render(text);
    expect(katexCount(html)).toBe(math);
    expect(html).not.toContain("katex-error");
  });

  it("renders every dollar sign of the GSM8K seed's price-only paragraphs as text", () => {
    const seed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../packages/db/seed/processbench/gsm8k.json");
    const problems = JSON.parse(readFileSync(seed, "utf8")) as Array<{ id: string; problem: string; steps: string[] }>;
    // Price-only: no TeX, and every `$` opens an amount ("$5", not "5$" or "$x").
    const priceOnly = problems
      .flatMap((p) => [p.problem, ...p.steps])
      .filter((s) => s.includes("$") && !s.includes("\\") && /^(?:[^$]*(?:^|[^\p{L}\p{N}])\$\d)*[^$]*$/u.test(s));
    expect(priceOnly.length).toBeGreaterThan(300);
    for (const text of priceOnly) {
      const html = render(text);
      expect(katexCount(html), text).toBe(0);
      expect(visibleText(html).split("$").length, text).toBe(text.split("$").length);
    }
  });
});

describe("RichText: props", () => {
  it("renders inline without a wrapping <p>", () => {
    const html = render("**bold** and $x$", { inline: true, className: "extra" });
    expect(html).toMatch(/^<span class="[^"]*extra">/);
    expect(html).not.toContain("<p>");
    expect(katexCount(html)).toBe(1);
  });

  it("renders blocks in a <div> with paragraphs", () => {
    const html = render("one\n\ntwo");
    expect(html).toMatch(/^<div /);
    expect(html.match(/<p>/g)).toHaveLength(2);
  });

  it("raw mode shows the text verbatim with whitespace kept", () => {
    const text = "  $x$ <b>hi</b>\n\\(y\\)";
    const html = render(text, { mode: "raw" });
    expect(html).toBe(renderToStaticMarkup(createElement(PlainText, { text })));
    expect(html).toContain("whitespace-pre-wrap");
    expect(visibleText(html)).toBe(text);
    expect(katexCount(html)).toBe(0);
  });

  it("PlainText renders inline as a span", () => {
    expect(renderToStaticMarkup(createElement(PlainText, { text: "a\nb", inline: true }))).toBe(
      '<span class="whitespace-pre-wrap break-words">a\nb</span>',
    );
  });

  it("keeps single tildes as text (models write ~5 for about 5)", () => {
    expect(render("~5 minutes, ~6 hours")).not.toContain("<del>");
  });
});

describe("KaTeX markup to hast", () => {
  const corpus: Array<[string, boolean]> = [
    ["\\sqrt{x} + \\sqrt[3]{y}", false],
    ["\\frac{a}{b} \\dfrac{1}{2} \\binom{n}{k}", false],
    ["\\overrightarrow{AB} \\widehat{xyz} \\vec{v} \\hat{x} \\overline{x} \\underline{y}", false],
    ["\\cancel{x} \\bcancel{y} \\xcancel{z} \\phase{45^\\circ}", false],
    ["\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}", true],
    ["\\begin{array}{c|c}a&b\\\\\\hline c&d\\end{array}", true],
    ["\\begin{aligned}a&=b\\\\c&=d\\end{aligned}", true],
    ["x \\tag{1}", true],
    ["\\boxed{1} \\fbox{a} \\colorbox{yellow}{x} \\color{red}{y} \\textcolor{blue}{z}", false],
    ["\\underbrace{a+b}_{c} \\overbrace{d}^{e} \\xrightarrow{abc} \\overset{!}{=} \\not=", false],
    ["\\left(\\frac{1}{2}\\right) \\Bigg[ x \\Bigg]", false],
    ["\\int_0^1 f \\sum_{i=1}^n \\lim_{x\\to 0} \\prod \\oint", true],
    ["\\text{abc} \\mathbb{R} \\mathrm{d}x \\operatorname{lcm} \\mathcal{F}", false],
    ["a\\kern1em b\\mkern3mu c\\hspace{1em}d \\rule{1em}{2pt} \\, \\; \\! \\quad", false],
    ["\\href{https://example.com}{x} \\frac{", false],
  ];

  it.each(corpus)("%s: the allowlists keep everything KaTeX emits", (tex, display) => {
    const report: MarkupReport = { dropped: [] };
    const nodes = renderMath(tex, display, report);
    expect(report.dropped).toEqual([]);
    expect(JSON.stringify(nodes)).not.toContain("math-fallback");
  });

  it("drops what KaTeX would never emit", () => {
    const report: MarkupReport = { dropped: [] };
    const nodes = katexMarkupToHast(
      '<span class="a" onclick="x()">t</span><script>alert(1)</script><a href="javascript:x">y</a><svg><path d="M0" onload="x"/></svg>',
      report,
    );
    expect(report.dropped).toEqual(["span[onclick]", "script", "a[href]", "a", "path[onload]"]);
    const json = JSON.stringify(nodes);
    expect(json).not.toMatch(/onclick|onload|script|javascript/);
  });

  it("rejects markup outside KaTeX's grammar", () => {
    expect(() => katexMarkupToHast("<span>unclosed")).toThrow();
    expect(() => katexMarkupToHast("<span title=unquoted>x</span>")).toThrow();
  });
});
