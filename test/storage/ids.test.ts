import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSessionError } from "../../src/index.js";
import {
  assertValidCwd,
  assertValidSessionId,
  createEntryId,
  createSessionId,
} from "../../src/storage/ids.js";

const invalidId = (value: unknown) => {
  try {
    assertValidSessionId(value);
    return false;
  } catch (error) {
    return isSessionError(error, "invalid_id");
  }
};
const invalidCwd = (value: unknown) => {
  try {
    assertValidCwd(value);
    return false;
  } catch (error) {
    return isSessionError(error, "invalid_id");
  }
};

describe("createEntryId", () => {
  it("draws 8 lowercase hex characters, different across a run of 600 draws", () => {
    const taken = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const id = createEntryId(taken);
      expect(id).toMatch(/^[0-9a-f]{8}$/);
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
  });

  it("draws again while the id is taken", () => {
    let asked = 0;
    const id = createEntryId({ has: () => ++asked < 5 });
    expect(asked).toBe(5);
    expect(id).toMatch(/^[0-9a-f]{8}$/);
  });

  it("widens to a UUID after 100 taken draws", () => {
    let asked = 0;
    const id = createEntryId({
      has: (candidate) => {
        asked += 1;
        return candidate.length === 8;
      },
    });
    expect(asked).toBe(100);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe("createSessionId", () => {
  it("is a fresh UUID each time", () => {
    const a = createSessionId();
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(createSessionId()).not.toBe(a);
  });
});

describe("assertValidSessionId", () => {
  it.each(["a", "s1", "A.b_c-d", "2026-01-01_x", "a".repeat(200), createSessionId()])("accepts %s", (id) => {
    expect(invalidId(id)).toBe(false);
  });

  it.each<[string, unknown]>([
    ["a number", 12],
    ["an empty id", ""],
    ["a path", "a/b"],
    ["a backslash", "a\\b"],
    ["a leading dot", ".a"],
    ["a trailing dash", "a-"],
    ["two dots inside", "a..b"],
    ["a space", "a b"],
    ["201 characters", "a".repeat(201)],
  ])("refuses %s with invalid_id", (_, id) => {
    expect(invalidId(id)).toBe(true);
  });

  it("quotes the id in its message", () => {
    expect(() => assertValidSessionId("a/b")).toThrow('Invalid session id "a/b"');
  });

  it("accepts exactly the ids made of safe characters, at most 200, without '..' or an edge punctuation", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 210 }), (id) => {
        const safe =
          id.length > 0 &&
          id.length <= 200 &&
          /^[A-Za-z0-9._-]+$/.test(id) &&
          /^[A-Za-z0-9]/.test(id) &&
          /[A-Za-z0-9]$/.test(id) &&
          !id.includes("..");
        expect(invalidId(id)).toBe(!safe);
      }),
    );
  });
});

describe("assertValidCwd", () => {
  it.each(["/", "/home/me/project", "C:\\work", "relative/dir", "/a/..b/c", "/a/b.."])(
    "accepts %s",
    (cwd) => {
      expect(invalidCwd(cwd)).toBe(false);
    },
  );

  it.each<[string, unknown]>([
    ["a number", 3],
    ["an empty path", ""],
    ["a NUL byte", "/a\0b"],
    ["a .. segment", "/a/../b"],
    ["a leading .. segment", "../b"],
    ["a Windows .. segment", "C:\\a\\..\\b"],
    ["a trailing .. segment", "/a/.."],
  ])("refuses %s with invalid_id", (_, cwd) => {
    expect(invalidCwd(cwd)).toBe(true);
  });

  it("quotes the cwd in its message", () => {
    expect(() => assertValidCwd("/a/../b")).toThrow('Invalid cwd "/a/../b"');
  });
});
