"""Hooks for .ci/schemathesis.sh.

Provider limits are real: an agent (or a credential) limited to one
request a minute makes its runs wait a minute for each inference, holding
their worker meanwhile, and every later request that waits for a run
(`?wait=true`, a stream) then outlasts schemathesis's request timeout. The
generated limits are kept valid and exercised (checked, stored, shown), but
raised to at least a thousand requests a second, so that no generated run
waits for them.
"""

import schemathesis
from schemathesis.generation.meta import TestPhase

FLOORS = {"requests_per_minute": 60_000, "tokens_per_minute": 100_000_000, "max_concurrent": 1_000}


def _raised(limits):
    if not isinstance(limits, dict):
        return limits
    raised = dict(limits)
    for key, floor in FLOORS.items():
        value = raised.get(key)
        # Only numbers in range are raised: anything else stays as generated, to be refused.
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value < floor:
            raised[key] = floor
    return raised


def _raised_in(path, body):
    """`body` with the provider limits in it raised, for an operation on `path`."""
    if not isinstance(body, dict):
        return body
    if path.startswith("/provider/limits/"):
        return _raised(body)
    if "limits" in body:
        body = dict(body)
        body["limits"] = _raised(body["limits"])
    return body


@schemathesis.hook
def map_body(ctx, body):
    return _raised_in(ctx.operation.path, body)


@schemathesis.hook
def map_case(ctx, case):
    # The examples' and the coverage phase's cases see no map_* hook of a
    # part: their limits are raised here. An agent created there with one
    # request a minute would hold every later `?wait=true` and stream of its
    # runs past the request timeout. A body is set again only when it
    # changed, since schemathesis checks again what a set body now is.
    meta = case.meta
    if meta is not None and meta.phase.name not in (TestPhase.EXAMPLES, TestPhase.COVERAGE):
        return case
    raised = _raised_in(case.operation.path, case.body)
    if raised != case.body:
        case.body = raised
    return case
