export { RichTextModeToggle } from "./mode-toggle";
export { normalizeMathDelimiters } from "./preprocess";
export { PlainText, RICH_TEXT_MODES, RichText, type PlainTextProps, type RichTextMode, type RichTextProps } from "./rich-text";
