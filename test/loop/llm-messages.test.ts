import { describe, expect, it } from "vitest";
import { convertGrowingTranscript } from "../../src/loop/llm-messages.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { user } from "../support/loop-harness.js";

const note = (text: string) => ({ role: "note", text, timestamp: 0 }) as unknown as AgentMessage;

describe("the default conversion of a growing transcript", () => {
  it("keeps model messages, converts appended ones, and returns a fresh array each time", () => {
    const transcript: AgentMessage[] = [user("a"), note("x")];
    const first = convertGrowingTranscript(transcript);
    transcript.push(user("b"), note("y"), user("c"));
    const second = convertGrowingTranscript(transcript);
    expect(first.map((m) => m.content)).toEqual(["a"]);
    expect(second.map((m) => m.content)).toEqual(["a", "b", "c"]);
    expect(second).not.toBe(convertGrowingTranscript(transcript));
  });

  it("starts afresh when the transcript was rewritten or shortened", () => {
    const transcript: AgentMessage[] = [user("a"), user("b")];
    convertGrowingTranscript(transcript);
    transcript[1] = user("B");
    expect(convertGrowingTranscript(transcript).map((m) => m.content)).toEqual(["a", "B"]);
    transcript.length = 1;
    expect(convertGrowingTranscript(transcript).map((m) => m.content)).toEqual(["a"]);
  });
});
