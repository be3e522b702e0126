import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { intervalText, pValueText, significance, signedPct } from "../src/app/(app)/compare/format";
import { RationaleDiff } from "../src/app/(app)/compare/item/rationale-diff";

describe("rationale diff rendering", () => {
  it("renders model text as escaped text in marked spans, never as HTML", () => {
    const html = renderToStaticMarkup(createElement(RationaleDiff, { a: 'ok <img src=x onerror="alert(1)"> \\boxed{Positive}', b: "ok <script>alert(2)</script> \\boxed{Negative}" }));
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
    expect(html).toContain("&lt;img");
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain('<del data-op="delete"');
    expect(html).toContain('<ins data-op="insert"');
    expect(html).toMatch(/data-op="equal"[^>]*>ok </);
  });
});

describe("comparison number formats", () => {
  it("calls a difference only when its interval excludes 0", () => {
    expect(significance(0.01, 0.2)).toBe("better");
    expect(significance(-0.2, -0.01)).toBe("worse");
    expect(significance(-0.01, 0.2)).toBe("none");
    expect(significance(0, 0.2)).toBe("none");
  });

  it("shows scores in percent, differences signed, and p below the bootstrap's resolution", () => {
    expect(intervalText(0.1234, 0.5)).toBe("[12.3, 50.0]");
    expect(intervalText(-0.05, 0.1, true)).toBe("[-5.0, +10.0]");
    expect(signedPct(-0.00001)).toBe("0.0");
    expect(pValueText(0, 1000)).toBe("p < 0.001");
    expect(pValueText(0, 100)).toBe("p < 0.01");
    expect(pValueText(0.0234, 1000)).toBe("p = 0.023");
  });
});
