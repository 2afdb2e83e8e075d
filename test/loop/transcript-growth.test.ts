import { describe, expect, it } from "vitest";
import { appendMessages, grewFrom, onlyLlmMessages } from "../../src/loop/transcript-growth.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { user } from "../support/loop-harness.js";

// An app-defined message the model never sees (what `convertToLlm` would drop or translate).
const note = { role: "note", text: "for the app only", timestamp: 1 } as unknown as AgentMessage;

/** A transcript grown from `start` by `steps` appends of one user message each. */
function grow(start: readonly AgentMessage[], steps: number): readonly AgentMessage[] {
  let transcript = start;
  for (let step = 0; step < steps; step++) transcript = appendMessages(transcript, [user(`m${step}`)]);
  return transcript;
}

describe("transcript growth", () => {
  it("appends into a new transcript and leaves the old one as it was", () => {
    const first = user("one");
    const older = [first];
    const newer = appendMessages(older, [user("two"), user("three")]);
    expect(newer).not.toBe(older);
    expect(older).toEqual([first]);
    expect(newer.map((m) => (m as { content: string }).content)).toEqual(["one", "two", "three"]);
  });

  it("knows a transcript grew from itself and from each transcript it was appended to", () => {
    const base = [user("hi")];
    const once = appendMessages(base, [user("a")]);
    const twice = appendMessages(once, [user("b")]);
    expect(grewFrom(base, base)).toBe(true);
    expect(grewFrom(once, base)).toBe(true);
    expect(grewFrom(twice, base)).toBe(true);
    expect(grewFrom(twice, once)).toBe(true);
  });

  it("does not take an older transcript, a copy or a sibling for an ancestor", () => {
    const base = [user("hi")];
    const once = appendMessages(base, [user("a")]);
    const sibling = appendMessages(base, [user("b")]);
    expect(grewFrom(base, once)).toBe(false);
    expect(grewFrom(once, [...base])).toBe(false);
    expect(grewFrom(sibling, once)).toBe(false);
    expect(grewFrom([...once], base)).toBe(false);
  });

  it("follows 64 appends and gives up past them (the caller then starts over)", () => {
    const base = [user("hi")];
    expect(grewFrom(grow(base, 64), base)).toBe(true);
    expect(grewFrom(grow(base, 65), base)).toBe(false);
  });

  it("tells whether a transcript holds only model messages, however it was made", () => {
    const llm = [user("hi")];
    expect(onlyLlmMessages(llm)).toBe(true);
    expect(onlyLlmMessages([])).toBe(true);
    expect(onlyLlmMessages([user("hi"), note])).toBe(false);
    expect(onlyLlmMessages(appendMessages(llm, [user("more")]))).toBe(true);
    expect(onlyLlmMessages(grow(llm, 3))).toBe(true);
  });

  it("a transcript with an app message, appended or appended to, is not model-only", () => {
    const llm = appendMessages([user("hi")], [user("a")]);
    expect(onlyLlmMessages(appendMessages(llm, [note]))).toBe(false);
    expect(onlyLlmMessages(appendMessages(llm, [user("b"), note]))).toBe(false);
    expect(onlyLlmMessages(appendMessages([note], [user("b")]))).toBe(false);
    expect(onlyLlmMessages(appendMessages(appendMessages([note], [user("b")]), [user("c")]))).toBe(false);
    expect(onlyLlmMessages(appendMessages([user("x"), note], [user("b")]))).toBe(false);
  });
});
