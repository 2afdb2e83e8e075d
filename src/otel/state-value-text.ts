import type { StateValue } from "xstate";

/**
 * A state value as one readable string: `"streaming"`, or dotted paths for nested states
 * (`"executingTools.waiting"`), parallel regions joined by `,`.
 */
export function stateValueText(value: StateValue): string {
  if (typeof value === "string") return value;
  return Object.entries(value)
    .map(([key, child]) => (child === undefined ? key : `${key}.${stateValueText(child)}`))
    .join(",");
}
