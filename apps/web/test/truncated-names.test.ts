import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * A name cut off with an ellipsis keeps its whole text in a tooltip: every shortened text goes through the UI
 * kit's `Truncate`, which sets `title`, so no page writes Tailwind's `truncate` (or `text-ellipsis`) itself.
 */

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");
const KIT_COMPONENT = path.join(src, "components/ui/truncate.tsx");
const SHORTENING_CLASS = /(?<![\w-])(truncate|text-ellipsis)(?![\w-])/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** `file:line: text` of each line whose class strings shorten text with an ellipsis. */
function shorteningClassUses(files: ReadonlyArray<{ name: string; text: string }>): string[] {
  return files.flatMap(({ name, text }) =>
    text.split("\n").flatMap((line, i) => {
      const classStrings = [...line.matchAll(/className=(?:"([^"]*)"|\{`([^`]*)`\})|cx\(([^)]*)\)|className: "([^"]*)"/g)].map((m) => m.slice(1).join(" "));
      return classStrings.some((classes) => SHORTENING_CLASS.test(classes)) ? [`${name}:${i + 1}: ${line.trim()}`] : [];
    }),
  );
}

describe("shortened names", () => {
  it("finds a class string that shortens text, and leaves words that are not classes alone", () => {
    const uses = shorteningClassUses([
      { name: "a.tsx", text: '<span className="w-28 truncate">{name}</span>\n<span title="truncated">x</span>\n{s.truncated && <TruncatedBadge />}' },
      { name: "b.tsx", text: 'column.accessor("run", { meta: { className: "max-w-72 truncate" } })\n<td className={cx("px-3", "text-ellipsis")} />' },
    ]);
    expect(uses).toEqual(['a.tsx:1: <span className="w-28 truncate">{name}</span>', 'b.tsx:1: column.accessor("run", { meta: { className: "max-w-72 truncate" } })', 'b.tsx:2: <td className={cx("px-3", "text-ellipsis")} />']);
  });

  it("go through Truncate, which keeps the whole text in the tooltip", () => {
    const files = sourceFiles(src)
      .filter((file) => file !== KIT_COMPONENT)
      .map((file) => ({ name: path.relative(src, file), text: readFileSync(file, "utf8") }));
    expect(files.length).toBeGreaterThan(50);
    expect(shorteningClassUses(files)).toEqual([]);
  });
});
