/**
 * The text of an unknown thrown value. Never throws: it runs inside the catch blocks that keep the
 * loop from hanging, so a value whose `message` getter, `toJSON` or `toString` throws still gets a text.
 */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    if (typeof error === "string") return error;
    try {
      return JSON.stringify(error) ?? String(error);
    } catch {
      return String(error);
    }
  } catch {
    return "Unknown error (the thrown value could not be read)";
  }
}
