/**
 * Free-form JSON in the generated types (agent `options`, a task's `data`, an edited call's
 * `input`) must accept any JSON a caller writes. A generator that cannot read the document's
 * schema for it degrades it to `Record<string, never>` (only `{}`), without a warning; this test
 * type-checks real uses with the compiler so that such a regression fails here.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { packageRoot } from "./harness.js";

const uses = `
import type { ApprovalDecision, FleetTask, NewAgent } from "${join(packageRoot, "src", "index.js")}";

export const agent: NewAgent = {
  name: "a",
  provider: "scripted",
  model: "echo",
  options: { script: [{ text: "hi" }, { tool_calls: [{ name: "bash", input: { command: "echo hi" } }] }], chunk_delay_ms: 5 },
};
export const task: FleetTask = { message: "m", data: { index: 1, tags: ["a", "b"], nested: { ok: true, none: null } } };
export const scalarTask: FleetTask = { message: "m", data: 42 };
export const decision: ApprovalDecision = { call_id: "c", decision: "edit", input: { command: "echo edited" } };
`;

test("free-form JSON fields accept any JSON", () => {
  const dir = mkdtempSync(join(tmpdir(), "wingman-ts-json-"));
  try {
    const file = join(dir, "uses.ts");
    writeFileSync(file, uses);
    const tsc = createRequire(join(packageRoot, "package.json")).resolve("typescript/bin/tsc");
    const result = spawnSync(
      process.execPath,
      [tsc, "--noEmit", "--strict", "--skipLibCheck", "--target", "ES2022", "--module", "NodeNext",
        "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", file],
      { cwd: packageRoot, encoding: "utf8" },
    );
    assert.equal(result.status, 0, `free-form JSON is typed too narrowly:\n${result.stdout}${result.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
