"""The README's example runs as it is written there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- example: (\S+) .*?-->\n```python\n(.*?)```", readme, re.S)
    assert found, "README.md has no example block"
    path, code = found.group(1), found.group(2)
    # The example is kept as a file too, so that it can be run and linted on its own.
    assert (ROOT / path).read_text() == code
    return code


def test_readme_example_runs(wingman):
    code = readme_example()
    assert len(code.strip().splitlines()) <= 10
    env = {**os.environ, "WINGMAN_SERVER": wingman.url, "WINGMAN_API_KEY": wingman.token}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello, Wingman!\nstatus: succeeded\n"
