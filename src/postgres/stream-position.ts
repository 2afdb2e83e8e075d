/**
 * Positions in a session's stream, one number ordering entries and the recorded deltas of replies:
 * entry `seq` is at `seq × DELTAS_PER_ENTRY`, the deltas of the reply streamed after entry `seq` come
 * after it (`+ 1`, `+ 2`, …) and before the next entry. Exact as JavaScript numbers up to 2^33
 * entries per session.
 */
export const DELTAS_PER_ENTRY = 2 ** 20;

/** The position of entry `seq`. */
export function entryPosition(seq: number): number {
  return seq * DELTAS_PER_ENTRY;
}

/** The entry a position belongs to (the entry itself, or the one the delta's reply follows). */
export function entryOfPosition(position: number): number {
  return Math.floor(position / DELTAS_PER_ENTRY);
}
