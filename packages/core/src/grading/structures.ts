/**
 * The shape of an answer: a scalar, or tuples, intervals, sets, bare lists of
 * roots, matrices and unions of intervals built from scalars. Shapes are read
 * from our normalised LaTeX by bracket matching, not by the CAS, so the
 * comparison can insist on what the CAS would blur (`[1,2)` is not `[1,2]`).
 */
import { matchingBracket, splitTopLevel } from "./latex";
import { cleanAnswer, cleanNamedScalar, cleanScalar, stripAssignment, type NormaliseOptions } from "./normalise";
import { lastSideOfChain, relationSet } from "./relations";

/** An inequality read as the set of its subject's values (`x > 5` is (5, ∞) for x). */
export interface RelationOrigin {
  subject: string;
  /** The relation as written, for comparing two relations whose subjects differ. */
  text: string;
}

export type AnswerNode =
  /** `variable` is the name an assignment prefix gave the value (`y` in `y = 2x + 1`); it is not part of the text. */
  /** `unit` is the trailing unit that was dropped (`cm^2`), in one spelling per unit. */
  | { kind: "scalar"; text: string; variable?: string; unit?: string }
  /** `(a, b)`, `[a, b)`, ...: ordered, and the brackets are part of the value (tuples and intervals alike). */
  | { kind: "sequence"; open: "(" | "["; close: ")" | "]"; items: AnswerNode[]; relation?: RelationOrigin }
  /** `\{a, b\}`: unordered. */
  | { kind: "set"; items: AnswerNode[] }
  /** `a, b` with no brackets (roots, solutions): unordered unless `unorderedLists` is off. */
  | {
      kind: "list";
      items: AnswerNode[];
      ordered: boolean;
      /** For `x = 1, y = 2`: the values in the order of their variable names, to compare with the point `(1, 2)`. */
      namedValues?: AnswerNode[];
      /** The same values in the order they were written. */
      writtenValues?: AnswerNode[];
      /** `2,74` or `1000,99`: two numbers, or one number with a decimal comma; the other answer decides. */
      decimal?: string;
    }
  | { kind: "matrix"; rows: AnswerNode[][] }
  /** `A \cup B`: unordered. */
  | { kind: "union"; items: AnswerNode[]; relation?: RelationOrigin };

const MAX_STRUCTURE_DEPTH = 16;

const MATRIX_RE = /^\\begin\{(pmatrix|bmatrix|Bmatrix|matrix|smallmatrix|array)\}/;

function isWhole(text: string, openAt: number, closeTokenLength: number): boolean {
  const close = matchingBracket(text, openAt);
  return close !== -1 && close === text.length - closeTokenLength;
}

function parseMatrix(text: string, options: NormaliseOptions, depth: number): AnswerNode | null {
  let body = text;
  // `\left(\begin{array}{cc}...\end{array}\right)` has lost its \left/\right by now.
  if ((body.startsWith("(") || body.startsWith("[")) && isWhole(body, 0, 1)) body = body.slice(1, -1).trim();
  const m = MATRIX_RE.exec(body);
  if (!m) return null;
  const env = m[1]!;
  const end = `\\end{${env}}`;
  if (!body.endsWith(end) || !isWhole(body, 0, end.length)) return null;
  let inner = body.slice(m[0].length, body.length - end.length);
  if (env === "array") inner = inner.replace(/^\s*\{[^{}]*\}/, "");
  const rows = splitTopLevel(inner, "\\\\")
    .map((row) => row.replace(/\\hline/g, "").trim())
    .filter((row) => row !== "")
    .map((row) => splitTopLevel(row, "&").map((cell) => parseNode(cell, options, depth + 1)));
  if (rows.length === 0) return null;
  return { kind: "matrix", rows };
}

/** `1,000,000` at the top level is one number, not three list items. */
function joinThousands(text: string): string {
  // `0,111` is not a thousands numeral (no number starts with a zero group): a decimal comma or a list.
  const numeral = /(?<![\d,.])(?!0,)\d{1,3}(?:,\d{3})+(?![\d,])/.exec(text);
  if (!numeral) return text;
  const commas = (text.match(/,/g) ?? []).length;
  const inNumeral = (numeral[0].match(/,/g) ?? []).length;
  if (commas !== inNumeral) return text;
  return text.replace(numeral[0], numeral[0].replace(/,/g, ""));
}

/** `\pm` in a scalar stands for two answers; `x = \pm 2` is the list `2, -2`. */
function expandPlusMinus(text: string): string[] {
  const parts = text.split("\\pm");
  if (parts.length !== 2) return [text];
  return [`${parts[0]}+${parts[1]}`, `${parts[0]}-${parts[1]}`];
}

function parseList(rawParts: string[], options: NormaliseOptions, depth: number): AnswerNode {
  const parts = rawParts.map((p) => lastSideOfChain(p.trim()));
  const assignments = parts.map((p) => stripAssignment(p.trim()));
  const variables = assignments.map((a) => a.variable);
  // `x = 1, y = 2` keeps its names (a solution of a system); `x = 1, x = 2` is a list of roots.
  const distinct = new Set(variables);
  const keepNames = variables.every((v) => v !== null) && distinct.size === variables.length;
  const items = parts.map((p, i) =>
    keepNames ? { kind: "scalar" as const, text: cleanScalar(p, options, true) } : parseNode(assignments[i]!.value, options, depth + 1),
  );
  const list: AnswerNode = { kind: "list", items: expandListItems(items, options), ordered: options.unorderedLists === false };
  if (keepNames) {
    const named = assignments.map((a) => ({ name: a.variable!, value: parseNode(a.value, options, depth + 1) }));
    list.writtenValues = named.map((n) => n.value);
    list.namedValues = [...named].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)).map((n) => n.value);
  }
  return list;
}

function expandListItems(items: AnswerNode[], options: NormaliseOptions): AnswerNode[] {
  return items.flatMap((item) =>
    item.kind === "scalar" && item.text.includes("\\pm")
      ? expandPlusMinus(item.text).map((t) => ({ kind: "scalar" as const, text: cleanScalar(t, options) }))
      : [item],
  );
}

function parseNode(text: string, options: NormaliseOptions, depth: number): AnswerNode {
  let s = text.trim();
  if (depth > MAX_STRUCTURE_DEPTH) return { kind: "scalar", text: cleanScalar(s, options) };

  // `x \in [1, 2)` and `x = (1, 2)`: the name is not part of the value.
  const assigned = stripAssignment(s);
  if (assigned.variable !== null && /^(?:[([]|\\\{|\\begin)/.test(assigned.value.trim())) s = assigned.value.trim();

  const union = splitTopLevel(s, "\\cup");
  if (union.length > 1) return { kind: "union", items: union.map((part) => parseNode(part, options, depth + 1)) };

  const matrix = parseMatrix(s, options, depth);
  if (matrix) return matrix;

  if (s.startsWith("\\{") && s.endsWith("\\}") && isWhole(s, 0, 2)) {
    const inner = s.slice(2, -2).trim();
    // Set-builder notation is a description, not a list of elements.
    if (/\\mid|\||:/.test(inner)) {
      // `\{x \mid x > 0\}` is the set its condition describes, when that is an interval.
      const builder = /^([a-zA-Z])\s*(?:\\in\s*\\mathbb\{?R\}?\s*)?(?:\\mid|\||:)\s*(.+)$/.exec(inner);
      const condition = builder ? relationNode(builder[2]!, options, depth) : null;
      if (condition && condition.kind !== "scalar" && "relation" in condition && condition.relation?.subject === builder![1]) return condition;
      return { kind: "scalar", text: cleanScalar(s, options) };
    }
    if (inner === "") return { kind: "scalar", text: "\\emptyset" };
    const items = expandListItems(
      splitTopLevel(inner, ",").map((part) => parseNode(part, options, depth + 1)),
      options,
    );
    // A set has no multiplicity: \{1, 1, 2\} is \{1, 2\}.
    const unique = new Map<string, AnswerNode>();
    for (const item of items) if (!unique.has(serialiseAnswer(item))) unique.set(serialiseAnswer(item), item);
    return { kind: "set", items: [...unique.values()] };
  }

  const first = s[0];
  const last = s[s.length - 1];
  if ((first === "(" || first === "[") && (last === ")" || last === "]") && isWhole(s, 0, 1)) {
    const inner = s.slice(1, -1);
    let parts = splitTopLevel(inner, ",");
    // `(0; -2; 6)`: a point written with semicolons.
    if (parts.length === 1) parts = splitTopLevel(inner, ";");
    if (parts.length >= 2) {
      return { kind: "sequence", open: first, close: last, items: parts.map((part) => parseNode(part, options, depth + 1)) };
    }
    // Redundant parentheses around a single value: (5) is 5.
    if (first === "(" && last === ")") return parseNode(inner, options, depth + 1);
  }

  // `p=5,q=2; p=7,q=2` and `-12; -11; -10`: semicolons separate answers.
  const groups = splitTopLevel(s, ";").filter((p) => p.trim() !== "");
  if (groups.length >= 2) {
    return { kind: "list", items: groups.map((g) => parseNode(g, options, depth + 1)), ordered: options.unorderedLists === false };
  }
  const joined = joinThousands(s);
  const parts = splitTopLevel(joined, ",").filter((p) => p.trim() !== "");
  if (parts.length >= 2) {
    const list = parseList(parts, options, depth);
    const decimal = /^(-?\d+),(\d+)$/.exec(joined.trim());
    if (decimal && list.kind === "list") list.decimal = `${decimal[1]}.${decimal[2]}`;
    return list;
  }
  const single = lastSideOfChain(parts[0] ?? joined);
  const relation = relationNode(single, options, depth);
  if (relation) return relation;
  const { text: scalar, variable, unit } = cleanNamedScalar(single, options);
  const expanded = expandPlusMinus(scalar);
  if (expanded.length === 2 && depth === 0) {
    return { kind: "list", items: expanded.map((t) => ({ kind: "scalar", text: cleanScalar(t, options) })), ordered: false };
  }
  const node: AnswerNode = { kind: "scalar", text: scalar };
  if (variable !== null) node.variable = variable;
  if (unit !== null) node.unit = unit;
  return node;
}

const INFINITY: AnswerNode = { kind: "scalar", text: "\\infty" };
const MINUS_INFINITY: AnswerNode = { kind: "scalar", text: "-\\infty" };

/** An inequality with constant bounds as the interval (or union, for `\ne`) of its subject's values. */
function relationNode(text: string, options: NormaliseOptions, depth: number): AnswerNode | null {
  const set = relationSet(text);
  if (!set) return null;
  const relation: RelationOrigin = { subject: cleanScalar(set.subject, options, true), text };
  const bound = (value: string) => parseNode(value, options, depth + 1);
  if (set.kind === "except") {
    const value = bound(set.value);
    return {
      kind: "union",
      items: [
        { kind: "sequence", open: "(", close: ")", items: [MINUS_INFINITY, value] },
        { kind: "sequence", open: "(", close: ")", items: [value, INFINITY] },
      ],
      relation,
    };
  }
  return {
    kind: "sequence",
    open: set.lower?.inclusive ? "[" : "(",
    close: set.upper?.inclusive ? "]" : ")",
    items: [set.lower ? bound(set.lower.value) : MINUS_INFINITY, set.upper ? bound(set.upper.value) : INFINITY],
    relation,
  };
}

/** The structure of an answer string (cleaned first). */
export function parseAnswer(answer: string, options: NormaliseOptions = {}): AnswerNode {
  let cleaned = cleanAnswer(answer);
  // " or " / " and " between alternatives separate list items, unless the whole phrase is words.
  if (/[\d}\\]/.test(cleaned)) cleaned = cleaned.replace(/\s+(?:or|and)\s+|(?<=[)\]])\s*(?:or|and)\s*(?=[([])/g, ",");
  // `{1, 2, 3}` with plain braces is a group in LaTeX: it shows the list 1, 2, 3.
  if (cleaned.startsWith("{") && isWhole(cleaned, 0, 1) && splitTopLevel(cleaned.slice(1, -1), ",").length > 1) cleaned = cleaned.slice(1, -1);
  return parseNode(cleaned, options, 0);
}

function sortedKeys(items: AnswerNode[]): string[] {
  return items.map(serialiseAnswer).sort();
}

/** Canonical text of a structure: sets, unordered lists and unions have their elements sorted. */
export function serialiseAnswer(node: AnswerNode): string {
  switch (node.kind) {
    case "scalar":
      // The unit stays visible: `5\text{ cm}` and `5\text{ m}` must not look alike.
      return node.unit === undefined ? node.text : `${node.text}\\text{ ${node.unit}}`;
    case "sequence":
      return `${node.open}${node.items.map(serialiseAnswer).join(",")}${node.close}`;
    case "set":
      return `\\{${sortedKeys(node.items).join(",")}\\}`;
    case "list":
      return (node.ordered ? node.items.map(serialiseAnswer) : sortedKeys(node.items)).join(",");
    case "matrix":
      return `\\begin{pmatrix}${node.rows.map((row) => row.map(serialiseAnswer).join("&")).join("\\\\")}\\end{pmatrix}`;
    case "union":
      return sortedKeys(node.items).join("\\cup");
  }
}

/**
 * Our canonical string form of a bare answer (no extraction): cleaned, split
 * into its structure, unordered collections sorted. Equal strings mean
 * equivalent answers; the converse needs `gradeAnswer`.
 */
export function normaliseAnswer(answer: string, options: NormaliseOptions = {}): string {
  return serialiseAnswer(parseAnswer(answer, options));
}
