/** System prompt of every summary request: summarise, never continue the conversation. */
export const SUMMARIZATION_SYSTEM_PROMPT =
  "You are a context summarization assistant. You read a conversation between a user and an AI " +
  "assistant that uses tools, and you write a structured summary another assistant will use to " +
  "continue the work. Do not continue the conversation, do not answer its questions and do not call " +
  "tools: output only the summary, in the format you are asked for.";

const SUMMARY_FORMAT = `## Goal
[What the user wants to accomplish; a short list if there are several goals]

## Constraints & Preferences
- [Requirements, rules and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Finished work]

### In Progress
- [ ] [Work under way]

### Blocked
- [Problems holding the work up, or "(none)"]

## Key Decisions
- **[Decision]**: [Why it was made]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, references and exact error messages needed to continue, or "(none)"]

Keep every section concise. Preserve exact file paths, function names, commands and error messages.`;

/** Instruction for a first summary of a conversation. */
export const SUMMARY_PROMPT = `The messages above are a conversation to summarize. Write a checkpoint summary that lets another assistant continue the work, in exactly this format:

${SUMMARY_FORMAT}`;

/** Instruction for updating the summary of an earlier compaction with newer messages. */
export const UPDATE_SUMMARY_PROMPT = `The messages above continue the work described in <previous-summary>. Update that summary with them:
- keep everything from the previous summary that still matters;
- add the new progress, decisions and context;
- move items that are now finished from In Progress to Done;
- rewrite Next Steps for the current state;
- drop items that no longer matter.

Answer with the whole updated summary, in exactly this format:

${SUMMARY_FORMAT}`;

/** Instruction for the first part of a turn too long to keep whole (a split turn). */
export const TURN_PREFIX_PROMPT = `The messages above are the beginning of one turn that was too long to keep whole; its later part stays in the context verbatim. Summarize this beginning so the kept part makes sense, in exactly this format:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [What was done and found in this part of the turn]

## Context for Suffix
- [What the kept part needs to be understood: files, results, decisions, exact errors]

Be concise. Preserve exact file paths, function names, commands and error messages.`;

/** Instruction for summarising a branch the user navigated away from. */
export const BRANCH_SUMMARY_PROMPT = `The messages above are a conversation branch the user explored and then left, returning to an earlier point. Summarize what happened on that branch so the assistant knows what was tried, learned and decided there, in exactly this format:

## Goal
[What the user was trying to do on this branch]

## Constraints & Preferences
- [Requirements and preferences stated on the branch, or "(none)"]

## Progress
### Done
- [x] [Finished work]

### In Progress
- [ ] [Work left unfinished]

### Blocked
- [Problems met, or "(none)"]

## Key Decisions
- **[Decision]**: [Why]

## Next Steps
1. [What would have come next]

Be concise. Preserve exact file paths, function names, commands and error messages.`;

/** Text placed before every branch summary in the context. */
export const BRANCH_SUMMARY_PREFIX =
  "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/** Joins a history summary and a split turn's prefix summary. */
export const SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/** History summary used when a split turn has nothing before it and there is no earlier summary. */
export const NO_PRIOR_HISTORY = "No prior history.";

/** The user message of a summary request: transcript, optional previous summary, instruction, focus. */
export function summaryRequestText(input: {
  transcript: string;
  instruction: string;
  previousSummary?: string;
  customInstructions?: string;
}): string {
  let text = `<conversation>\n${input.transcript}\n</conversation>\n\n`;
  if (input.previousSummary !== undefined) {
    text += `<previous-summary>\n${input.previousSummary}\n</previous-summary>\n\n`;
  }
  text += input.instruction;
  const focus = input.customInstructions?.trim();
  if (focus) text += `\n\nAdditional focus: ${focus}`;
  return text;
}
