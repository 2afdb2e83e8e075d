import { describe, expect, it } from "vitest";
import {
  diffEvalResults,
  type EvalResult,
  parseEvalResult,
  toHtmlReport,
  toJunitXml,
  toMarkdownReport,
} from "../../src/evals.js";

/** A result of three cases: one passing, one failing a scorer, one whose run failed. */
function result(overrides: Partial<EvalResult> = {}): EvalResult {
  const sample = { text: "t", toolCalls: [], stopReason: "stop" as const, latencyMs: 250, tokens: 5 };
  return {
    name: "support <bot>",
    startedAt: "2026-12-05T02:00:00.000Z",
    durationMs: 1500,
    repeats: 1,
    score: 0.5,
    passRate: 1 / 3,
    scorers: [{ scorer: "exactText", mean: 0.5, passRate: 0.5, cases: 2 }],
    cases: [
      {
        caseId: "ok",
        score: 1,
        passed: true,
        scores: [
          {
            scorer: "exactText",
            mean: 1,
            spread: 0,
            passHatK: true,
            samples: [{ score: 1, reason: "same", passed: true }],
          },
        ],
        samples: [sample],
      },
      {
        caseId: 'wrong & "quoted"',
        score: 0,
        passed: false,
        scores: [
          {
            scorer: "exactText",
            mean: 0,
            spread: 0,
            passHatK: false,
            samples: [{ score: 0, reason: 'the text "a<b" is not "c|d"\u0001', passed: false }],
          },
        ],
        samples: [sample],
      },
      {
        caseId: "crashed",
        score: 0,
        passed: false,
        error: "model down",
        scores: [],
        samples: [{ ...sample, stopReason: "error", error: "model down" }],
      },
    ],
    coverage: { total: 3, exercised: 2, missed: ["agent.idle on RESET → (self)"] },
    ...overrides,
  };
}

describe("JUnit XML", () => {
  it("has the testsuites → testsuite → testcase shape CI tools read, with failures and errors counted", () => {
    const xml = toJunitXml(result());
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="support &lt;bot&gt;" tests="3" failures="1" errors="1" time="1.500">',
      ),
    ).toBe(true);
    expect(xml).toContain(
      '<testsuite name="support &lt;bot&gt;" tests="3" failures="1" errors="1" skipped="0" time="1.500" timestamp="2026-12-05T02:00:00">',
    );
    expect(xml).toContain('<testcase name="ok" classname="support &lt;bot&gt;" time="0.250"/>');
    expect(xml).toContain(
      '<testcase name="wrong &amp; &quot;quoted&quot;" classname="support &lt;bot&gt;" time="0.250">',
    );
    expect(xml).toContain(
      '<failure message="the text &quot;a&lt;b&quot; is not &quot;c|d&quot;" type="exactText">',
    );
    expect(xml).toContain('<error message="model down" type="run_error">model down</error>');
    expect(xml).toContain('<property name="score" value="0.5"/>');
    expect(xml).not.toContain("\u0001");
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml.match(/<\/testcase>/g)).toHaveLength(2);
    expect(xml.trim().endsWith("</testsuite>\n</testsuites>")).toBe(true);
  });
});

describe("Markdown and HTML reports", () => {
  it("Markdown shows the summary, the scorers, the cases, the failures and the missed transitions", () => {
    const markdown = toMarkdownReport(result());
    expect(markdown).toContain("# Eval: support <bot>");
    expect(markdown).toContain("- Score 0.500, 33.3% of 3 cases passed");
    expect(markdown).toContain("| exactText | 0.500 | 50.0% | 2 |");
    expect(markdown).toContain("| ok | 1.000 | yes | 1.000 |");
    expect(markdown).toContain("| crashed | 0.000 | no | – |");
    expect(markdown).toContain('| wrong & "quoted" | exactText | the text "a<b" is not "c\\|d"');
    expect(markdown).toContain("| crashed | (run) | model down |");
    expect(markdown).toContain("| agent.idle on RESET → (self) |");
  });

  it("HTML escapes everything and holds the same tables", () => {
    const html = toHtmlReport(result());
    expect(html).toContain("<title>Eval: support &lt;bot&gt;</title>");
    expect(html).toContain("<td>wrong &amp; &quot;quoted&quot;</td>");
    expect(html).not.toContain("<bot>");
    expect(html.match(/<table>/g)).toHaveLength(4);
  });

  it("shows the mean ± spread with repeats", () => {
    const repeated = result({ repeats: 3 });
    repeated.cases[0]!.scores[0]!.spread = 0.25;
    expect(toMarkdownReport(repeated)).toContain("| ok | 1.000 | yes | 1.000 ± 0.250 |");
  });
});

describe("baseline diff", () => {
  it("marks regressed, improved, new and removed cases", () => {
    const baseline = result();
    const current = result({ score: 0.75 });
    current.cases = [
      { ...baseline.cases[0]!, score: 0.5, passed: false },
      { ...baseline.cases[1]!, score: 1, passed: true },
      { ...baseline.cases[0]!, caseId: "brand new" },
    ];
    const diff = diffEvalResults(current, baseline);
    expect(diff.cases.map((entry) => [entry.caseId, entry.change])).toEqual([
      ["ok", "regressed"],
      ['wrong & "quoted"', "improved"],
      ["brand new", "new"],
      ["crashed", "removed"],
    ]);
    expect(diff.score).toEqual({ baseline: 0.5, current: 0.75 });
    const markdown = toMarkdownReport(current, diff);
    expect(markdown).toContain("Against the baseline: score 0.500 → 0.750, 1 cases regressed, 1 improved");
    expect(markdown).toContain("| ok | regressed | 1.000 | 0.500 |");
  });

  it("reads a baseline back from the JSON report, and rejects anything else", () => {
    expect(parseEvalResult(JSON.stringify(result()))).toEqual(result());
    expect(() => parseEvalResult("{", "old.json")).toThrow(/^old\.json: not JSON/);
    expect(() => parseEvalResult('{"score":1}', "old.json")).toThrow("old.json: not an eval result");
  });
});
