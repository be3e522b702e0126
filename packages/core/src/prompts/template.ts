/**
 * Prompt templates are versioned: `name@vN` is stored with every generation
 * (judge samples, rollouts, segmentations), so a published version's text
 * must never change. Changing a prompt means adding `name@v(N+1)`.
 */
export type PromptTemplateId<Name extends string = string, Version extends number = number> = `${Name}@v${Version}`;

export interface PromptTemplate<Slot extends string = string, Id extends string = PromptTemplateId> {
  readonly id: Id;
  readonly name: string;
  readonly version: number;
  /** What the prompt is for, for people picking one in the UI or CLI. */
  readonly purpose: string;
  readonly slots: readonly Slot[];
  /**
   * The full text. `{slot}` marks where a declared slot's value goes; any
   * other braces, such as `\boxed{}` or `\boxed{Positive}`, are literal.
   */
  readonly text: string;
}

/** For completion endpoints (and for storing exactly what was sent). */
export interface RenderedPrompt {
  templateId: string;
  text: string;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** For chat endpoints. */
export interface ChatPrompt {
  templateId: string;
  messages: ChatMessage[];
}

export type PromptErrorKind = "unknown-template" | "invalid-template" | "missing-slot" | "unknown-slot" | "invalid-slot-value";

export class PromptError extends Error {
  override readonly name = "PromptError";
  constructor(
    readonly kind: PromptErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const SLOT_NAME = /^[a-z][a-z0-9_]*$/;

export function definePromptTemplate<const Name extends string, const Version extends number, const Slot extends string>(definition: {
  name: Name;
  version: Version;
  purpose: string;
  slots: readonly Slot[];
  text: string;
}): PromptTemplate<Slot, PromptTemplateId<Name, Version>> {
  const id: PromptTemplateId<Name, Version> = `${definition.name}@v${definition.version}`;
  if (!Number.isInteger(definition.version) || definition.version < 1) {
    throw new PromptError("invalid-template", `prompt template ${id}: the version must be a positive integer`);
  }
  for (const slot of definition.slots) {
    if (!SLOT_NAME.test(slot)) throw new PromptError("invalid-template", `prompt template ${id}: invalid slot name "${slot}"`);
    if (!definition.text.includes(`{${slot}}`)) {
      throw new PromptError("invalid-template", `prompt template ${id}: slot {${slot}} is declared but never used in the text`);
    }
  }
  return Object.freeze({ ...definition, id, slots: Object.freeze([...definition.slots]) });
}

/**
 * Fills every `{slot}` of the template in a single pass. Values are inserted
 * literally: a value holding "{chunk}", "$&" or "\boxed{}" is never read as
 * a slot or a replacement pattern, because the replacer function's return
 * value is not interpreted and the filled text is not scanned again.
 */
export function fillPromptTemplate<Slot extends string>(
  template: PromptTemplate<Slot, string>,
  values: Readonly<Record<Slot, string>>,
): RenderedPrompt {
  const given = values as Readonly<Record<string, unknown>>;
  for (const slot of template.slots) {
    if (!Object.hasOwn(given, slot)) throw new PromptError("missing-slot", `prompt template ${template.id}: no value for slot {${slot}}`);
    if (typeof given[slot] !== "string") {
      throw new PromptError("invalid-slot-value", `prompt template ${template.id}: the value for slot {${slot}} must be a string, got ${typeof given[slot]}`);
    }
  }
  const declared = new Set<string>(template.slots);
  for (const key of Object.keys(given)) {
    if (!declared.has(key)) {
      throw new PromptError(
        "unknown-slot",
        `prompt template ${template.id} has no slot {${key}} (its slots: ${template.slots.map((slot) => `{${slot}}`).join(", ") || "none"})`,
      );
    }
  }
  if (template.slots.length === 0) return { templateId: template.id, text: template.text };
  const slotPattern = new RegExp(`\\{(${template.slots.join("|")})\\}`, "g");
  const text = template.text.replace(slotPattern, (_match, slot: string) => given[slot] as string);
  return { templateId: template.id, text };
}

/** The same prompt as one user message: chat and completion runs then see identical wording. */
export function toChatPrompt(prompt: RenderedPrompt): ChatPrompt {
  return { templateId: prompt.templateId, messages: [{ role: "user", content: prompt.text }] };
}
