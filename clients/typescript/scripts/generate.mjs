#!/usr/bin/env node
// Regenerates src/schema.ts from the server's OpenAPI document.
//
// The document comes from `wingman openapi` (the binary named by WINGMAN_BIN, by default the
// repository's debug build), so no server has to run. The generator's own command line is used,
// so that its output is byte for byte what `npx openapi-typescript` would write. Anything the
// generator prints on stderr (a warning about a schema it could not translate, a lint problem)
// fails the script: a type that silently degrades to `unknown` is a bug in the document.
//
// Usage: node scripts/generate.mjs [--out PATH]   (default: src/schema.ts)

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? resolve(args[outIndex + 1]) : join(root, "src", "schema.ts");
const bin = process.env.WINGMAN_BIN || resolve(root, "../../target/debug/wingman");

const document = execFileSync(bin, ["openapi"], { encoding: "utf8", maxBuffer: 64 << 20 });
const dir = mkdtempSync(join(tmpdir(), "wingman-openapi-"));
try {
  const input = join(dir, "openapi.json");
  writeFileSync(input, document);
  const cli = join(root, "node_modules", "openapi-typescript", "bin", "cli.js");
  // The generator is run from the temporary directory so that no redocly.yaml of the caller's
  // working directory changes its lint rules; NO_COLOR keeps its messages plain.
  const result = spawnSync(process.execPath, [cli, input, "-o", out], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  const stderr = (result.stderr || "").trim();
  if (result.status !== 0 || stderr !== "") {
    process.stderr.write(
      `openapi-typescript ${result.status !== 0 ? `failed (exit ${result.status})` : "printed warnings"}:\n${stderr}\n${result.stdout || ""}`,
    );
    process.exit(1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`wrote ${out}\n`);
