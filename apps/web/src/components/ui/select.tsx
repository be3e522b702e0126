import type { ComponentProps, ReactNode } from "react";
import { controlClass, type ControlStyle } from "./field";

/** One choice: its value, what it reads, and any `data-*` attributes tests or styles look for. */
export type SelectOption = { value: string; label: ReactNode; disabled?: boolean } & { [attribute: `data-${string}`]: string | undefined };

export type SelectOptions = ReadonlyArray<SelectOption | readonly [value: string, label: ReactNode]>;

const optionOf = (option: SelectOptions[number]): SelectOption => ("value" in option ? option : { value: option[0], label: option[1] });

/**
 * A select with the control look, its options given as data. `placeholder`
 * is a first option with the empty value ("Choose…", "All", "None").
 */
export function Select({ options, placeholder, inline, compact, className, ...rest }: ControlStyle & Omit<ComponentProps<"select">, "children"> & { options: SelectOptions; placeholder?: string }) {
  return (
    <select className={controlClass({ inline, compact }, className)} {...rest}>
      {placeholder !== undefined && <option value="">{placeholder}</option>}
      {options.map((option) => {
        const { value, label, ...attributes } = optionOf(option);
        return (
          <option key={value} value={value} {...attributes}>
            {label}
          </option>
        );
      })}
    </select>
  );
}
