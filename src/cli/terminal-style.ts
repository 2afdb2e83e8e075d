/** ANSI styling that switches itself off when the stream is not a terminal or NO_COLOR is set. */
export interface TerminalStyle {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function terminalStyle(stream: { isTTY?: boolean }): TerminalStyle {
  const enabled = stream.isTTY === true && !process.env.NO_COLOR;
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
