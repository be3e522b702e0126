/**
 * The slice of the hast (HTML syntax tree) shape the rich-text plugins touch.
 * Declared here because `@types/hast` is only a transitive dependency, which
 * pnpm does not let the app import.
 */

export type HastProperties = Record<string, string | number | boolean | Array<string | number> | null | undefined>;

export interface HastText {
  type: "text";
  value: string;
}

export interface HastElement {
  type: "element";
  tagName: string;
  properties: HastProperties;
  children: HastChild[];
}

export interface HastRaw {
  type: "raw";
  value: string;
}

export interface HastOther {
  type: "comment" | "doctype";
  value?: string;
}

export type HastChild = HastElement | HastText | HastRaw | HastOther;

export interface HastRoot {
  type: "root";
  children: HastChild[];
}

export type HastParent = HastRoot | HastElement;

export function classList(element: HastElement): string[] {
  const value = element.properties.className;
  if (Array.isArray(value)) return value.map(String);
  return typeof value === "string" ? value.split(/\s+/).filter(Boolean) : [];
}

export function textContent(node: HastChild | HastRoot): string {
  if (node.type === "text") return node.value;
  if (node.type === "element" || node.type === "root") return node.children.map(textContent).join("");
  return "";
}
