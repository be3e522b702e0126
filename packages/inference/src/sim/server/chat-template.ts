import type { SimChatMessage } from "../model";

/**
 * The text a chat model "sees", used to count prompt tokens and to key the
 * prefix cache. Messages render in order and nothing depends on what follows,
 * so prompts sharing leading messages share leading tokens (what makes prefix
 * caching pay off for rollouts of one solution).
 */
export function renderChatPrompt(
  messages: readonly SimChatMessage[],
  options: { addGenerationPrompt: boolean; continueFinalMessage: boolean },
): string {
  let text = "";
  messages.forEach((message, i) => {
    const isOpenFinal = options.continueFinalMessage && i === messages.length - 1;
    // An assistant prefix being continued stays open: no end-of-message newline.
    text += `<|${message.role}|>\n${message.content}${isOpenFinal ? "" : "\n"}`;
  });
  if (options.addGenerationPrompt && !options.continueFinalMessage) text += "<|assistant|>\n";
  return text;
}
