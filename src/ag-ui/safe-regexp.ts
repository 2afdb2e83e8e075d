import type { RegExpEngine } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";

/**
 * The regular-expression engine of client tools' schemas (`pattern`, `patternProperties`): RE2
 * (the pure-JavaScript `re2js`), whose matching time is linear in the input, so that a pattern a
 * page declares (`^(a+)+$`) cannot block the server's event loop however its arguments are made.
 * ECMAScript syntax is translated (named groups, `\u` escapes); what RE2 cannot run in linear time
 * — backreferences, lookahead and lookbehind — is refused when the schema is compiled.
 *
 * Contract: throws (RE2's syntax error) for a pattern RE2 does not accept; the returned matcher never
 * throws.
 *
 * ```ts
 * import { Ajv2020 } from "ajv/dist/2020.js";
 * new Ajv2020({ code: { regExp: safeRegExp } });
 * ```
 */
export const safeRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    // ajv keys the compiled patterns it shares by this text.
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  { code: "re2js" },
);
