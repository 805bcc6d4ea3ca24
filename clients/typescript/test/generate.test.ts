/**
 * The checked-in types are what the generator makes of the server's current OpenAPI document,
 * and the generator has nothing to warn about in it.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { packageRoot, wingmanBin } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "wingman-ts-generate-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `npm run generate`'s script with a given binary, into a given file. */
function generate(bin: string, out: string) {
  return spawnSync(process.execPath, [join(packageRoot, "scripts", "generate.mjs"), "--out", out], {
    cwd: packageRoot,
    encoding: "utf8",
    env: { ...process.env, WINGMAN_BIN: bin },
  });
}

test("src/schema.ts is what the generator makes of `wingman openapi`, without a warning", () => {
  const out = join(dir, "schema.ts");
  const result = generate(wingmanBin, out);
  assert.equal(result.status, 0, `the generator failed or warned:\n${result.stderr}${result.stdout}`);
  const fresh = readFileSync(out, "utf8");
  const checkedIn = readFileSync(join(packageRoot, "src", "schema.ts"), "utf8");
  assert.ok(
    fresh === checkedIn,
    "src/schema.ts is stale: run `npm run generate` in clients/typescript and check the result in",
  );
});

test("a warning of the generator fails the generation", () => {
  // A document whose discriminator maps to a schema that is not an object: openapi-typescript
  // warns about it and goes on, which the script must not let pass.
  const document = {
    openapi: "3.1.0",
    info: { title: "warns", version: "1" },
    paths: {},
    components: {
      schemas: {
        A: {
          oneOf: [{ $ref: "#/components/schemas/B" }],
          discriminator: { propertyName: "kind", mapping: { b: "#/components/schemas/B" } },
        },
        B: { type: "string" },
      },
    },
  };
  const json = join(dir, "warns.json");
  writeFileSync(json, JSON.stringify(document));
  const fake = join(dir, "fake-wingman");
  writeFileSync(fake, `#!/bin/sh\nexec cat '${json}'\n`);
  chmodSync(fake, 0o755);
  const result = generate(fake, join(dir, "warns.ts"));
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /Discriminator mapping/);
});
