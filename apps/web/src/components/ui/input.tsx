import type { ComponentProps } from "react";
import { controlClass, type ControlStyle } from "./field";

/** A text, number, search or password input with the control look. */
export function Input({ inline, compact, className, ...rest }: ControlStyle & ComponentProps<"input">) {
  return <input className={controlClass({ inline, compact }, className)} {...rest} />;
}

export function Textarea({ inline, compact, className, ...rest }: ControlStyle & ComponentProps<"textarea">) {
  return <textarea className={controlClass({ inline, compact }, className)} {...rest} />;
}
