import { afterAll, beforeAll } from "vitest";

/**
 * Records every unhandled rejection and uncaught exception while the calling test file runs. Assert
 * that the returned list is empty in a final test.
 */
export function watchProcessFaults(): unknown[] {
  const faults: unknown[] = [];
  const record = (error: unknown) => faults.push(error);
  beforeAll(() => {
    process.on("unhandledRejection", record);
    process.on("uncaughtException", record);
  });
  afterAll(() => {
    process.off("unhandledRejection", record);
    process.off("uncaughtException", record);
  });
  return faults;
}
