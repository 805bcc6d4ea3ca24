"""Rewrites the generator's output so that it runs on Python 3.9 and 3.10.

openapi-python-client 0.29 writes code for Python 3.11 and later: `X | Y`
unions evaluated at run time (in `cast()` and type aliases), signatures with
such unions in modules that do not postpone annotations, `typing.Self`, `enum.StrEnum`, and
`datetime.fromisoformat()` on RFC 3339 times with a `Z`, which Python reads
only from 3.11 on. This module makes the smallest rewrite that removes each of
these, working on the syntax tree so that it is exact and deterministic.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path

FUTURE = "from __future__ import annotations\n"


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """The ids of every node inside an annotation, which is never evaluated
    once annotations are postponed."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = args.posonlyargs + args.args + args.kwonlyargs
            every += [a for a in (args.vararg, args.kwarg) if a is not None]
            found += [a.annotation for a in every if a.annotation is not None]
            if node.returns is not None:
                found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return {id(inner) for outer in found for inner in ast.walk(outer)}


def runtime_unions(tree: ast.AST) -> list[ast.BinOp]:
    """The `X | Y` expressions that are evaluated when the module runs."""
    skip = _annotation_nodes(tree)
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and id(node) not in skip
    ]


class _ToUnion(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if not isinstance(node.op, ast.BitOr):
            return self.generic_visit(node)
        members: list[ast.expr] = []

        def flatten(n: ast.expr) -> None:
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
                flatten(n.left)
                flatten(n.right)
            else:
                members.append(self.visit(n))

        flatten(node)
        return ast.Subscript(
            value=ast.Name(id="Union", ctx=ast.Load()),
            slice=ast.Tuple(elts=members, ctx=ast.Load()),
            ctx=ast.Load(),
        )


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def rewrite(source: str) -> str:
    if not source.strip():
        return source
    # Postponed annotations first, so that signatures are never evaluated.
    if FUTURE not in source:
        tree = ast.parse(source)
        body = tree.body
        at = 0
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            at = body[0].end_lineno or 0
        lines = source.splitlines(keepends=True)
        lines.insert(at, FUTURE)
        source = "".join(lines)

    # Unions evaluated at run time become typing.Union, outermost first.
    tree = ast.parse(source)
    unions = runtime_unions(tree)
    inner = {id(n) for u in unions for n in ast.walk(u) if n is not u}
    outermost = [u for u in unions if id(u) not in inner]
    if outermost:
        starts = _offsets(source)
        edits = []
        for node in outermost:
            begin = starts[node.lineno - 1] + len(
                source.splitlines(keepends=True)[node.lineno - 1].encode()[: node.col_offset].decode()
            )
            end = starts[node.end_lineno - 1] + len(
                source.splitlines(keepends=True)[node.end_lineno - 1].encode()[: node.end_col_offset].decode()
            )
            text = ast.unparse(_ToUnion().visit(copy.deepcopy(node)))
            edits.append((begin, end, text))
        for begin, end, text in sorted(edits, reverse=True):
            source = source[:begin] + text + source[end:]
        source = _add_import(source, "from typing import Union\n")

    # typing.Self arrived in Python 3.11.
    if "from typing import" in source and "Self" in source:
        out = []
        for line in source.splitlines(keepends=True):
            if line.startswith("from typing import ") and "Self" in line:
                names = [n.strip() for n in line[len("from typing import ") :].split(",")]
                rest = [n for n in names if n != "Self"]
                if rest:
                    out.append("from typing import " + ", ".join(rest) + "\n")
                out.append("from typing_extensions import Self\n")
            else:
                out.append(line)
        source = "".join(out)

    # enum.StrEnum arrived in Python 3.11; the generated enums define their
    # own __str__, so `str, Enum` behaves the same.
    if "from enum import StrEnum" in source:
        source = source.replace("from enum import StrEnum", "from enum import Enum")
        source = source.replace("(StrEnum):", "(str, Enum):")

    # Python reads a trailing `Z` in fromisoformat() only from 3.11 on.
    if "datetime.datetime.fromisoformat(" in source:
        source = source.replace("datetime.datetime.fromisoformat(", "isoparse(")
        source = _add_import(source, "from dateutil.parser import isoparse\n")
    return source


def _add_import(source: str, line: str) -> str:
    """Adds an import after the `from __future__` line, where it is valid."""
    if line in source:
        return source
    return source.replace(FUTURE, FUTURE + line, 1)


def main(root: str) -> None:
    for path in sorted(Path(root).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
