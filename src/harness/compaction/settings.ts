/** When and how much to compact. */
export interface CompactionSettings {
  /** Whether automatic compaction may run. Manual compaction ignores this flag. */
  enabled: boolean;
  /** Tokens kept free below the context window, for the next reply and the summary itself. */
  reserveTokens: number;
  /** Roughly how many tokens of the most recent conversation stay verbatim after a compaction. */
  keepRecentTokens: number;
}

/** `{enabled: true, reserveTokens: 16384, keepRecentTokens: 20000}` (pi's defaults). */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
});

/**
 * Whether a context of `contextTokens` should be compacted: compaction is enabled and the context
 * leaves less than `reserveTokens` free in the window.
 *
 * ```ts
 * shouldCompact(95_000, 100_000, { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 10_000 }); // true
 * ```
 */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: CompactionSettings,
): boolean {
  return settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
}
