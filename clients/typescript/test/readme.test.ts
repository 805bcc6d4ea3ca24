/**
 * The README's example is examples/quickstart.ts word for word, and it runs against a real
 * server as a user would run it: the package imported by its name, the server and key from the
 * environment.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { packageRoot, Stack } from "./harness.js";

let stack: Stack;

before(async () => {
  stack = await new Stack().start();
});

after(async () => {
  await stack?.stop();
});

test("the README shows examples/quickstart.ts verbatim", () => {
  const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
  const example = readFileSync(join(packageRoot, "examples", "quickstart.ts"), "utf8");
  assert.ok(readme.includes("```ts\n" + example + "```\n"), "README.md must show examples/quickstart.ts verbatim in a ```ts block");
});

test("the README's example runs", () => {
  const result = spawnSync(process.execPath, [join(packageRoot, "build", "examples", "quickstart.js")], {
    cwd: packageRoot,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, WINGMAN_SERVER: stack.url, WINGMAN_API_KEY: stack.token },
  });
  assert.equal(result.status, 0, `the example failed:\n${result.stderr}`);
  assert.equal(result.stdout, "Hello, Wingman!\nsucceeded after 1 step(s)\n");
});
