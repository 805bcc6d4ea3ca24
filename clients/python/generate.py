#!/usr/bin/env python3
"""Regenerates the checked-in code made from Wingman's OpenAPI document.

    python generate.py                 # rewrites openapi.json and wingman_client/api_gen
    python generate.py --out DIR       # writes DIR/openapi.json and DIR/api_gen instead

The document comes from `"${WINGMAN_BIN:-../../target/debug/wingman}" openapi`,
with its keys sorted.
The models and operations come from openapi-python-client with the settings of
codegen/config.yaml, then codegen/py39.py makes them run on Python 3.9, then
the pinned ruff formats them with no configuration but its own flags. Every
tool comes from requirements-dev.lock, so the same document always gives the
same bytes. The generator's report is printed; with --strict, a warning in it
(a schema or an operation it left out) makes this script fail.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = "api_gen"
WARNING_MARKERS = ("Warning(s) encountered", "Unable to", "WARNING")


def wingman_bin() -> str:
    return os.environ.get("WINGMAN_BIN") or str(HERE / ".." / ".." / "target" / "debug" / "wingman")


def generator_warnings(report: str) -> list[str]:
    """The lines of the generator's report that say it left something out."""
    return [line for line in report.splitlines() if any(m in line for m in WARNING_MARKERS)]


def generate(out: Path) -> str:
    """Writes out/openapi.json and out/api_gen; returns the generator's report."""
    out.mkdir(parents=True, exist_ok=True)
    printed = subprocess.run([wingman_bin(), "openapi"], check=True, capture_output=True).stdout
    # The server may print an object's keys in any order from one run to the
    # next; sorted keys make the same document the same bytes, and so the same code.
    document = json.dumps(json.loads(printed), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    (out / "openapi.json").write_text(document, encoding="utf-8")

    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / PACKAGE
        proc = subprocess.run(
            [
                str(bindir / "openapi-python-client"),
                "generate",
                "--path",
                str(out / "openapi.json"),
                "--meta",
                "none",
                "--config",
                str(HERE / "codegen" / "config.yaml"),
                "--output-path",
                str(target),
                "--overwrite",
            ],
            capture_output=True,
            text=True,
            # Rich wraps the report at the terminal's width; a fixed width keeps it readable in logs.
            env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        )
        report = proc.stdout + proc.stderr
        if proc.returncode != 0 or not target.is_dir():
            sys.stderr.write(report)
            raise SystemExit(f"openapi-python-client failed with status {proc.returncode}")
        sys.path.insert(0, str(HERE / "codegen"))
        import py39  # noqa: PLC0415 (the module lives beside this script, not in the package)

        py39.main(str(target))
        # The ruff binary, not `python -m ruff`: the generated package has a module named
        # types, which would shadow the standard library in a Python started inside it.
        ruff = [str(bindir / "ruff")]
        subprocess.run(
            ruff
            + [
                "check",
                "--isolated",
                "--target-version",
                "py39",
                "--fix-only",
                "--select",
                "I,F401",
                "--quiet",
                ".",
            ],
            cwd=target,
            check=True,
        )
        subprocess.run(
            ruff + ["format", "--isolated", "--target-version", "py39", "--quiet", "."],
            cwd=target,
            check=True,
        )
        for cache in target.rglob("__pycache__"):
            shutil.rmtree(cache)
        shutil.rmtree(target / ".ruff_cache", ignore_errors=True)
        dest = out / PACKAGE
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(target, dest)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write here instead of over the checked-in code")
    parser.add_argument("--strict", action="store_true", help="fail when the generator warns")
    args = parser.parse_args()
    if args.out is None:
        generated = Path(tempfile.mkdtemp())
        try:
            report = generate(generated)
            shutil.copyfile(generated / "openapi.json", HERE / "openapi.json")
            dest = HERE / "wingman_client" / PACKAGE
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(generated / PACKAGE, dest)
        finally:
            shutil.rmtree(generated, ignore_errors=True)
    else:
        report = generate(args.out)
    sys.stdout.write(report)
    warnings = generator_warnings(report)
    if warnings:
        print(
            f"\n{len(warnings)} warning line(s) from the generator: some schemas or operations are missing."
        )
        if args.strict:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
