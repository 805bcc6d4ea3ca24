"""Hooks for .ci/schemathesis_owners.sh: alpha's requests, with beta's IDs mixed in.

schemathesis runs with alpha's (a member's) key. These hooks put beta's IDs
(owners.json, written by `schemathesis_owners.py setup`) into about half of
the generated requests: in the path (`{id}` of the route's kind: /agents/{id}
one of beta's agents, /runs/{id} one of beta's runs, …; /secrets/{name} and
/provider/auth/{provider} beta's secret and provider key names,
/owners/{owner} `beta`), in the query (`session_id`, `fleet_run_id`, `after`,
…) and in the body (`agent_id`, `session_id`, `fleet_id`, `formation_id`, a
formation's nodes, a schedule's target, `call_id`, …). map_path_parameters,
map_query and map_body shape the examples, fuzzing and stateful phases;
map_case does the same to the coverage phase's cases, which those three do not
see. The provider limits are raised as .ci/schemathesis_hooks.py raises them
(imported: its map_body runs too).

The check `owners_isolation` holds every answer alpha gets to these rules:

- never a 5xx;
- never beta's marker (every name, instruction, message, secret value and
  key of beta's holds it), nor an object whose `owner` is `beta`;
- a 2xx never holds one of beta's IDs; an error may echo the IDs its request
  sent ("run 01K… not found") and no other of beta's;
- a request that carried one of beta's IDs (or the owner `beta`) gets what
  the same request gets with IDs no one has: it is sent again with each of
  beta's IDs replaced by a never-issued ULID of the same length, and the two
  answers must have the same status, and an error the same words (the IDs
  put back). So another owner's object is a 404 exactly where a missing one
  is (never a 403, never a 2xx); a route that is an admin's (/keys,
  /queue, PUT /owners/{owner}, …) is a 403 for both; input refused before
  any lookup is the same 400 or 422 for both; and a list filtered by one of
  beta's IDs is the same (empty) 2xx as one filtered by a missing ID. A 2xx
  where the missing ID gets none is a cross-owner read or write.
- Secret and provider key names are each owner's own: alpha's PUT
  /secrets/beta_secret_7f3a makes alpha's own secret of that name (a 200),
  which alpha may then delete. So a request that names one of them is not
  sent again to compare, and is held to the first three rules; that beta's
  secret and provider key stay as they were is for the comparison of beta's
  work before and after the run (schemathesis_owners.py verify).

Each answer is recorded in requests.jsonl for the figures.
"""

import hashlib
import json
import os
import random
import re
import threading
import zlib

import requests
import schemathesis
from schemathesis.generation.meta import TestPhase

import schemathesis_hooks  # noqa: F401  (its map_body raises generated provider limits)
from schemathesis_hooks import _raised

with open(os.environ["WINGMAN_OWNERS_FILE"]) as _file:
    OWNERS = json.load(_file)
LOG = os.environ["WINGMAN_OWNERS_LOG"]
MARKER = OWNERS["marker"]
IDS = OWNERS["ids"]
NAMES = OWNERS["names"]
BETA_IDS = sorted({id for ids in IDS.values() for id in ids if re.fullmatch(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", id)})
ANY_ID = [id for kind in ("runs", "sessions", "agents") for id in IDS[kind]]

# Which of beta's objects a path parameter names, by the route's first segment.
PATH_KINDS = {
    "agents": "agents",
    "sessions": "sessions",
    "runs": "runs",
    "fleets": "fleets",
    "fleet-runs": "fleet_runs",
    "formations": "formations",
    "formation-runs": "formation_runs",
    "schedules": "schedules",
    "keys": "keys",
}
# Routes whose parameter is a name: each owner's own namespace, or the owner.
NAME_ROUTES = {"/secrets/{name}": "secrets", "/provider/auth/{provider}": "credentials"}
OWNER_ROUTES = ("/owners/{owner}",)
# Body and query fields that name one of an owner's objects.
FIELD_KINDS = {
    "agent_id": "agents",
    "session_id": "sessions",
    "run_id": "runs",
    "parent_run_id": "runs",
    "fleet_id": "fleets",
    "fleet_run_id": "fleet_runs",
    "formation_id": "formations",
    "formation_run_id": "formation_runs",
    "schedule_id": "schedules",
    "call_id": "calls",
}
# `after` on a list names an object of the list's kind.
AFTER_KINDS = {"/runs": "runs", "/sessions": "sessions", "/fleet-runs": "fleet_runs",
               "/formation-runs": "formation_runs"}


def _pick(values, seed):
    return values[zlib.crc32(seed.encode()) % len(values)]


def _half(value):
    """True for about half of the values, the same for equal ones (so the seed decides)."""
    return zlib.crc32(json.dumps(value, sort_keys=True, default=repr).encode()) % 2 == 0


def _path_value(path, name, value):
    if path in NAME_ROUTES:
        return _pick(NAMES[NAME_ROUTES[path]], name)
    if path.startswith(OWNER_ROUTES) and name == "owner":
        return "beta"
    segments = path.strip("/").split("/")
    kind = PATH_KINDS.get(segments[0])
    # Any other parameter (a provider, a model, a credential's limits) gets any of beta's IDs.
    return _pick(IDS[kind] if kind and f"{{{name}}}" == segments[1] else ANY_ID, f"{name}{value}")


def _mix_path(path, params, mix=None):
    if not isinstance(params, dict) or not params or not (_half(params) if mix is None else mix):
        return params
    return {name: _path_value(path, name, value) for name, value in params.items()}


def _mix_query(path, query, mix=None):
    if not isinstance(query, dict) or not query or not (_half(query) if mix is None else mix):
        return query
    mixed = dict(query)
    for name, value in query.items():
        kind = FIELD_KINDS.get(name) or (AFTER_KINDS.get(path) if name == "after" else None)
        if kind:
            mixed[name] = _pick(IDS[kind], f"{name}{value}")
        elif name == "owner":
            mixed[name] = "beta"
    return mixed


# Where a body names objects besides its own fields: a formation's nodes, an
# agent's sub-agents, a schedule's target, a run's decisions and results.
# Nowhere else (free-form `metadata`, `data`, `input` are the client's own
# text, which no lookup reads).
NESTED = ("nodes", "subagents", "target", "decisions", "results")


def _mix_fields(value, nested=True):
    if isinstance(value, list):
        return [_mix_fields(v, nested) for v in value]
    if not isinstance(value, dict):
        return value
    mixed = {}
    for k, v in value.items():
        if k in FIELD_KINDS and isinstance(v, str):
            mixed[k] = _pick(IDS[FIELD_KINDS[k]], f"{k}{v}")
        elif nested and k in NESTED:
            mixed[k] = _mix_fields(v, nested=False)
        else:
            mixed[k] = v
    return mixed


def _mix_body(body, mix=None):
    if not isinstance(body, (dict, list)) or not (_half(body) if mix is None else mix):
        return body
    return _mix_fields(body)


# The operations whose path parameters have been mixed at least once.
_MIXED = set()
_MIXED_LOCK = threading.Lock()


def _first_mix(operation):
    """True for an operation's first case with path parameters, which then always
    carries beta's: that every owned operation receives some rests on no chance
    (with about half, an operation given a dozen distinct cases missed them all)."""
    key = (operation.method.upper(), operation.path)
    with _MIXED_LOCK:
        first = key not in _MIXED
        _MIXED.add(key)
    return first


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    first = bool(path_parameters) and _first_mix(ctx.operation)
    return _mix_path(ctx.operation.path, path_parameters, True if first else None)


@schemathesis.hook
def map_query(ctx, query):
    return _mix_query(ctx.operation.path, query)


@schemathesis.hook
def map_body(ctx, body):
    return _mix_body(body)


@schemathesis.hook
def map_case(ctx, case):
    # The coverage phase's cases see no map_* hook of a part: mixed here,
    # every part of about half of the cases (its path parameters alone are
    # often the same in every case of an operation).
    meta = case.meta
    if meta is None or meta.phase.name != TestPhase.COVERAGE:
        return case
    path = case.operation.path
    mix = _half([path, case.path_parameters, case.query, case.body])
    if case.path_parameters and _first_mix(case.operation):
        mix = True
    case.path_parameters = _mix_path(path, case.path_parameters, mix)
    case.query = _mix_query(path, case.query, mix)
    body = _mix_body(case.body, mix)
    if isinstance(body, dict):
        if path.startswith("/provider/limits/"):
            body = _raised(body)
        elif "limits" in body:
            body = dict(body, limits=_raised(body["limits"]))
    case.body = body
    return case


# The check.

HTTP = requests.Session()
HTTP.trust_env = False
_FAKES = {}


def _fake(id):
    """A ULID no one was given, as long as `id` (so a body keeps its length), fixed per ID."""
    if id not in _FAKES:
        rng = random.Random(id)
        tail = "".join(rng.choice("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for _ in range(16))
        _FAKES[id] = id[:10] + tail
    return _FAKES[id]


def _text(data):
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return str(data)


def _owned_by_beta(value):
    if isinstance(value, dict):
        return value.get("owner") == "beta" or any(_owned_by_beta(v) for v in value.values())
    if isinstance(value, list):
        return any(_owned_by_beta(v) for v in value)
    return False


def _replay(request, ids, owner_path):
    """The same request with each of `ids` replaced by a never-issued one: (status, body)."""
    url, body = request.url, request.body
    for id in ids:
        url = url.replace(id, _fake(id))
        if isinstance(body, bytes):
            body = body.replace(id.encode(), _fake(id).encode())
        elif isinstance(body, str):
            body = body.replace(id, _fake(id))
    if owner_path:
        url = re.sub(r"(/owners/)beta(?=[/?]|$)", r"\1nobody-7f3a", url)
    response = HTTP.request(request.method, url, data=body, headers=dict(request.headers), timeout=20,
                            stream=True, allow_redirects=False)
    try:
        content = b""
        for chunk in response.iter_content(65536):
            content += chunk
            if len(content) >= 65536 or "text/event-stream" in response.headers.get("content-type", ""):
                break
    except requests.RequestException:
        pass
    finally:
        response.close()
    return response.status_code, _text(content)


@schemathesis.check
def owners_isolation(ctx, response, case):
    request = response.request
    path = case.operation.path
    sent = request.url + "\n" + _text(request.body)
    carried = [id for id in BETA_IDS if id in sent]
    params = case.path_parameters or {}
    owner_path = path.startswith(OWNER_ROUTES) and params.get("owner") == "beta"
    named = path in NAME_ROUTES and any(v in NAMES[NAME_ROUTES[path]] for v in params.values())
    status = response.status_code
    content = _text(response.content)
    problems = []
    if status >= 500:
        problems.append(f"a {status}")
    if MARKER in content:
        problems.append(f"the answer holds beta's marker {MARKER!r}")
    try:
        parsed = json.loads(content) if content else None
    except ValueError:
        parsed = None
    if _owned_by_beta(parsed):
        problems.append("the answer holds an object whose owner is beta")
    shown = [id for id in BETA_IDS if id in content]
    if 200 <= status < 300 and shown:
        problems.append(f"a {status} holds beta's IDs {shown}")
    elif [id for id in shown if id not in carried]:
        problems.append(f"the answer holds beta's IDs it was not sent: {[id for id in shown if id not in carried]}")
    replayed = None
    cross = False
    if carried or owner_path:
        replayed, words = _replay(request, carried, owner_path)
        if 200 <= status < 300 and not 200 <= replayed < 300:
            cross = True
        if status != replayed:
            problems.append(f"with beta's {carried or 'owner'} it is a {status}; with IDs no one has, a {replayed}")
        elif status >= 400:
            echoed = words
            for id in carried:
                echoed = echoed.replace(_fake(id), id)
            if owner_path:
                echoed = echoed.replace("nobody-7f3a", "beta")
            if echoed != content:
                problems.append(f"its words differ from a missing object's: {content[:300]!r} vs {words[:300]!r}")
    if shown and 200 <= status < 300:
        cross = True
    with open(LOG, "a") as log:
        log.write(json.dumps({
            "operation": case.operation.label,
            "key": hashlib.sha256(f"{request.method} {sent}".encode()).hexdigest(),
            "request": f"{request.method} /{request.url.split('/', 3)[-1]} {_text(request.body)[:300]}",
            "status": status,
            "carried": bool(carried or owner_path or named),
            # As alpha, with the operation's own method (not one of the coverage
            # phase's requests without a key or with another method).
            "as_alpha": request.method == case.operation.method.upper()
            and request.headers.get("Authorization") == f"Bearer {OWNERS['alpha']['key']}",
            "replayed": replayed,
            "cross_owner_2xx": cross,
            "problems": problems,
        }) + "\n")
    if problems:
        named_ids = f"naming beta's {', '.join(carried)}" if carried else "naming nothing of beta's by ID"
        raise AssertionError(f"alpha's request ({named_ids}) was answered as beta's isolation forbids: "
                             + "; ".join(problems))
