import fs from "node:fs/promises";
import path from "node:path";

/** The tool context the built-in tools need: the folder they are confined to. */
export interface BuiltinToolContext {
  cwd: string;
}

/** Thrown when a tool is asked for a path outside its working directory. */
export class PathOutsideCwdError extends Error {
  override name = "PathOutsideCwdError";
  readonly code = "outside_cwd";
}

const MAX_LINK_HOPS = 40;

/**
 * Returns the working directory from a built-in tool's context. Throws when the agent was given no
 * tool context (`toolContext: { cwd }`).
 */
export function requireCwd(context: unknown): string {
  const cwd = (context as Partial<BuiltinToolContext> | undefined)?.cwd;
  if (typeof cwd !== "string" || cwd === "") {
    throw new Error(
      "Built-in tools need a tool context with a cwd, e.g. toolContext: { cwd: process.cwd() }",
    );
  }
  return path.resolve(cwd);
}

/**
 * Resolves `requested` against `cwd` and checks it stays inside: `..` escapes, absolute paths
 * elsewhere, and symlinks (on the path itself or any existing parent, dangling ones included) that
 * lead outside are refused with `PathOutsideCwdError`. The path need not exist. Returns the
 * absolute, unresolved-symlink path. The check is made before the tool acts; a symlink swapped in
 * afterwards by another process is not caught.
 */
export async function resolveInCwd(cwd: string, requested: string): Promise<string> {
  const root = path.resolve(cwd);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) {
    throw new PathOutsideCwdError(
      `Path "${requested}" is outside the working directory ${root}; only paths inside it can be used`,
    );
  }
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch {
    throw new Error(`The working directory ${root} does not exist`);
  }
  const realTarget = await realPathOfNearestExisting(target, 0);
  if (!isInside(realRoot, realTarget)) {
    throw new PathOutsideCwdError(
      `Path "${requested}" goes through a symbolic link to ${realTarget}, outside the working directory ${root}`,
    );
  }
  return target;
}

/** Whether `candidate` is `root` or lies below it (both absolute). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

/**
 * The real path of `target`, or of its nearest existing ancestor with the missing tail appended.
 * A dangling symlink is followed to where it points, so writing through it is checked too.
 */
async function realPathOfNearestExisting(target: string, hops: number): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new Error(`Too many levels of symbolic links at ${target}`);
  try {
    return await fs.realpath(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const linkTarget = await fs.readlink(target).catch(() => undefined);
  if (linkTarget !== undefined) {
    return realPathOfNearestExisting(path.resolve(path.dirname(target), linkTarget), hops + 1);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  const realParent = await realPathOfNearestExisting(parent, hops);
  return path.join(realParent, path.basename(target));
}
