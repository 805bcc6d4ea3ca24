"""The two ends of .ci/schemathesis_owners.sh, run with the virtualenv's Python.

`setup URL TOKEN WEBHOOK_URL OUT_DIR`: as the admin TOKEN, makes member keys
for owners alpha and beta; as beta, makes one object of every kind that has
an ID (and a secret and a provider key), waits until beta's work is still,
and writes OUT_DIR/owners.json (the keys, beta's IDs and names, for the
hooks) and OUT_DIR/before.json (everything beta sees of its own work).

`verify OUT_DIR`: reads beta's work again, as beta, and fails unless it is
what before.json holds; then adds up what the hooks recorded
(OUT_DIR/requests.jsonl) and fails on a 5xx, a cross-owner 2xx or an
operation with an owned `{id}` that never received one of beta's IDs.
"""

import json
import sys
import time

import requests

MARKER = "beta-private-7f3a"
SECRET = "beta_secret_7f3a"
CREDENTIAL = "openai:beta7f3a"
# Everything beta makes that names an object of beta's must hold the marker,
# so that any answer to alpha that shows it is caught.
SECRET_VALUE = f"{MARKER}-secret-value"
CREDENTIAL_KEY = f"sk-{MARKER}-0123456789abcdef"

HTTP = requests.Session()
HTTP.trust_env = False


class Api:
    def __init__(self, url, key):
        self.url = url
        self.key = key

    def call(self, method, path, body=None, expect=(200,), timeout=60):
        response = HTTP.request(
            method,
            self.url + path,
            json=body,
            headers={"Authorization": f"Bearer {self.key}"},
            timeout=timeout,
        )
        if response.status_code not in expect:
            sys.exit(f"setup: {method} {path} {json.dumps(body)} answered {response.status_code}: {response.text}")
        return response.json() if response.content else None

    def get(self, path):
        return self.call("GET", path)

    def read(self, path):
        """GET's JSON, or what came instead of a 200: {"answered": status, "body": text}."""
        response = HTTP.get(self.url + path, headers={"Authorization": f"Bearer {self.key}"}, timeout=60)
        if response.status_code != 200:
            return {"answered": response.status_code, "body": response.text}
        return response.json()

    def post(self, path, body=None, expect=(200, 201, 202)):
        return self.call("POST", path, body, expect)


def wait_for(what, probe, seconds=60):
    """Polls `probe` until it answers something true; fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            sys.exit(f"setup: {what} did not happen within {seconds} s")
        time.sleep(0.2)


def setup(url, token, webhook, out):
    admin = Api(url, token)
    keys = {}
    for owner in ("alpha", "beta"):
        made = admin.post("/keys", {"owner": owner, "role": "member", "name": f"schemathesis {owner}"})
        assert made["owner"] == owner and made["key"].startswith("wmk_"), made
        keys[owner] = made
    beta = Api(url, keys["beta"]["key"])
    hook = {"url": webhook}

    # Runs of `answers` end at their first step; `asks` calls bash, which
    # needs a person's approval, so its run stays `waiting` for the test.
    answers = beta.post("/agents", {
        "name": f"{MARKER} answers",
        "provider": "scripted",
        "instructions": f"{MARKER} instructions",
        "options": {"script": [{"text": f"{MARKER} answer"}]},
        "webhook": hook,
    })
    asks = beta.post("/agents", {
        "name": f"{MARKER} asks",
        "provider": "scripted",
        "instructions": f"{MARKER} instructions",
        "tools": ["bash"],
        "approve_tools": ["bash"],
        "options": {"script": [
            {"tool_calls": [{"name": "bash", "input": {"command": f"echo {MARKER}"}}]},
            {"text": f"{MARKER} done"},
        ]},
    })
    for agent in (answers, asks):
        assert agent["owner"] == "beta" and agent["shared"] is False, agent
    session = beta.post("/sessions", {
        "agent_id": answers["id"], "title": f"{MARKER} session", "metadata": {"note": MARKER},
    })
    done = beta.post(f"/sessions/{session['id']}/message?wait=true", {"message": f"{MARKER} hello"})
    assert done["status"] == "succeeded", done
    waiting = beta.post(
        f"/sessions/{session['id']}/message?wait=true",
        {"message": f"{MARKER} run bash", "agent_id": asks["id"]},
    )
    assert waiting["status"] == "waiting", waiting
    calls = [call["call_id"] for call in waiting["approval"]["calls"]]

    fleet = beta.post("/fleets", {"name": f"{MARKER} fleet", "agent_id": answers["id"]})
    fleet_run = beta.post(f"/fleets/{fleet['id']}/run?wait=true", {
        "tasks": [{"message": f"{MARKER} task 0"}, {"message": f"{MARKER} task 1", "data": {"note": MARKER}}],
        "webhook": hook,
    })
    assert all(task["status"] == "succeeded" for task in fleet_run), fleet_run
    fleet_runs = beta.get(f"/fleet-runs?fleet_id={fleet['id']}")["fleet_runs"]
    assert len(fleet_runs) == 1, fleet_runs

    formation = beta.post("/formations", {
        "name": f"{MARKER} formation", "nodes": [{"id": "ask", "agent_id": answers["id"]}], "edges": [],
    })
    formation_run = beta.post(
        f"/formations/{formation['id']}/run?wait=true", {"input": f"{MARKER} input", "webhook": hook},
    )
    assert formation_run["status"] == "succeeded", formation_run

    # Neither ticks while the test runs: the first is next due on 1 January,
    # the second is paused.
    target = {"session_id": session["id"], "agent_id": answers["id"], "message": f"{MARKER} tick"}
    yearly = beta.post("/schedules", {"name": f"{MARKER} yearly", "cron": "0 0 1 1 *", "target": target})
    paused = beta.post("/schedules", {"name": f"{MARKER} paused", "every": "366d", "target": target})
    beta.post(f"/schedules/{paused['id']}/pause")

    beta.call("PUT", f"/secrets/{SECRET}", {"value": SECRET_VALUE})
    beta.call("PUT", "/provider/auth", {"providers": {CREDENTIAL: {"type": "api_key", "key": CREDENTIAL_KEY}}})

    # Every run beta has (the fleet's tasks and the formation's node too),
    # and their sessions.
    runs = beta.get("/runs?limit=500")["runs"]
    assert len(runs) == 5, [(run["id"], run["kind"], run["status"]) for run in runs]
    sessions = sorted({run["session_id"] for run in runs})

    # Still: every run but the waiting one ended, every webhook delivered.
    subjects = [f"/runs/{done['run_id']}", f"/fleet-runs/{fleet_runs[0]['id']}",
                f"/formation-runs/{formation_run['formation_run_id']}"]

    def delivered():
        found = []
        for subject in subjects:
            deliveries = beta.get(f"{subject}/deliveries")["deliveries"]
            if len(deliveries) != 1 or deliveries[0]["status"] != "delivered":
                return None
            found.append(deliveries[0]["id"])
        return found

    deliveries = wait_for("the webhooks' delivery", delivered)

    def still():
        listed = beta.get("/runs?limit=500")["runs"]
        statuses = sorted(run["status"] for run in listed)
        return statuses == ["succeeded"] * 4 + ["waiting"] and listed

    runs = wait_for("beta's runs ending", still)
    # The waiting run first: a path that names a run names it most often.
    runs.sort(key=lambda run: run["status"] != "waiting")

    owners = {
        "url": url,
        "marker": MARKER,
        "alpha": {"key": keys["alpha"]["key"], "id": keys["alpha"]["id"]},
        "beta": {"key": keys["beta"]["key"], "id": keys["beta"]["id"]},
        "ids": {
            "agents": [answers["id"], asks["id"]],
            "sessions": [session["id"]] + [s for s in sessions if s != session["id"]],
            "runs": [run["id"] for run in runs],
            "fleets": [fleet["id"]],
            "fleet_runs": [fleet_runs[0]["id"]],
            "formations": [formation["id"]],
            "formation_runs": [formation_run["formation_run_id"]],
            "schedules": [yearly["id"], paused["id"]],
            "keys": [keys["beta"]["id"]],
            "deliveries": deliveries,
            "calls": calls,
        },
        "names": {"secrets": [SECRET], "credentials": [CREDENTIAL], "owners": ["beta"]},
    }
    with open(f"{out}/owners.json", "w") as file:
        json.dump(owners, file, indent=1)
    seen, shared = snapshot(owners)
    assert not shared, shared
    with open(f"{out}/before.json", "w") as file:
        json.dump(seen, file, indent=1, sort_keys=True)
    counts = ", ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in owners["ids"].items())
    print(f"beta's work: {counts}; secret {SECRET}, provider key {CREDENTIAL}")


def snapshot(owners):
    """Everything beta sees of its own work, read as beta."""
    beta = Api(owners["url"], owners["beta"]["key"])
    ids = owners["ids"]
    seen = {}
    # Other owners' shared agents, fleets and formations are in beta's lists
    # by right (alpha may share what it makes): set aside, by ID.
    shared = []
    for path in ("/agents", "/sessions", "/runs?limit=500", "/fleets", "/fleet-runs?limit=500", "/formations",
                 "/formation-runs?limit=500", "/schedules", "/secrets", "/provider/auth", "/owners/beta",
                 "/owners/beta/usage"):
        seen[path] = set_aside_shared(beta.read(path), shared)
    for kind, root in (("agents", "/agents"), ("sessions", "/sessions"), ("fleets", "/fleets"),
                       ("formations", "/formations")):
        for id in ids[kind]:
            seen[f"{root}/{id}"] = beta.read(f"{root}/{id}")
    for kind, root in (("runs", "/runs"), ("fleet_runs", "/fleet-runs"), ("formation_runs", "/formation-runs")):
        for id in ids[kind]:
            seen[f"{root}/{id}"] = beta.read(f"{root}/{id}")
            seen[f"{root}/{id}/events"] = beta.read(f"{root}/{id}/events")
            seen[f"{root}/{id}/deliveries"] = beta.read(f"{root}/{id}/deliveries")
    for id in ids["schedules"]:
        seen[f"/schedules/{id}"] = beta.read(f"/schedules/{id}")
        seen[f"/schedules/{id}/runs"] = beta.read(f"/schedules/{id}/runs")
    # The one part of these reads that changes by itself: the span of days
    # the usage adds up ends today, so it moves at midnight (UTC).
    usage = seen["/owners/beta/usage"]
    for field in ("from", "to"):
        usage.pop(field, None)
    if isinstance(usage.get("total"), dict):
        usage["total"].pop("day", None)
    return seen, sorted(shared)


def set_aside_shared(listed, shared):
    """`listed` without other owners' shared objects, whose IDs go to `shared`."""

    def beta_sees(item):
        if isinstance(item, dict) and item.get("owner", "beta") != "beta" and item.get("shared") is True:
            shared.append(item["id"])
            return False
        return True

    if isinstance(listed, list):
        return [item for item in listed if beta_sees(item)]
    if isinstance(listed, dict):
        return {k: [i for i in v if beta_sees(i)] if isinstance(v, list) else v for k, v in listed.items()}
    return listed


def differences(before, after, path=""):
    """Where `after` differs from `before`, as lines."""
    if isinstance(before, dict) and isinstance(after, dict) and ("answered" in before) != ("answered" in after):
        was, now = (before.get("answered", 200), after.get("answered", 200))
        return [f"{path}: answered {now} {after.get('body', '')[:200]} (was {was})"]
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in sorted(set(before) | set(after)):
            if key not in after:
                lines.append(f"{path}.{key}: gone (was {json.dumps(before[key])[:200]})")
            elif key not in before:
                lines.append(f"{path}.{key}: new: {json.dumps(after[key])[:200]}")
            else:
                lines += differences(before[key], after[key], f"{path}.{key}")
        return lines
    if (isinstance(before, list) and isinstance(after, list)
            and all(isinstance(item, dict) and "id" in item for item in before + after)):
        old = {item["id"]: item for item in before}
        new = {item["id"]: item for item in after}
        lines = [f"{path}: new {id}: {json.dumps(new[id])[:200]}" for id in new if id not in old]
        lines += [f"{path}: gone {id}" for id in old if id not in new]
        for id in old:
            if id in new:
                lines += differences(old[id], new[id], f"{path}[{id}]")
        return lines
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        lines = []
        for i, (b, a) in enumerate(zip(before, after)):
            lines += differences(b, a, f"{path}[{i}]")
        return lines
    if before != after:
        return [f"{path}: {json.dumps(before)[:200]} -> {json.dumps(after)[:200]}"]
    return []


def owned_path(label):
    """Whether an operation's path names one of an owner's objects by a parameter."""
    _, path = label.split(" ", 1)
    roots = ("/agents/{", "/sessions/{", "/runs/{", "/fleets/{", "/fleet-runs/{", "/formations/{",
             "/formation-runs/{", "/schedules/{", "/keys/{", "/secrets/{", "/provider/auth/{", "/owners/{")
    return path.startswith(roots)


def verify(out):
    with open(f"{out}/owners.json") as file:
        owners = json.load(file)
    with open(f"{out}/before.json") as file:
        before = json.load(file)
    after, shared = snapshot(owners)
    with open(f"{out}/after.json", "w") as file:
        json.dump(after, file, indent=1, sort_keys=True)
    failed = []
    changed = [line for path in sorted(set(before) | set(after))
               for line in differences(before.get(path), after.get(path), f"GET {path}")]
    if changed:
        failed.append("beta's work changed while alpha's requests ran:\n  " + "\n  ".join(changed[:40]))
    # Beta's lists hold beta's own objects only (alpha made many meanwhile).
    for path, listed in after.items():
        if isinstance(listed, dict):
            listed = [item for value in listed.values() if isinstance(value, list) for item in value]
        if not isinstance(listed, list):
            continue
        strangers = [item.get("id", item.get("name")) for item in listed
                     if isinstance(item, dict) and item.get("owner", "beta") != "beta"]
        if strangers:
            failed.append(f"beta's GET {path} lists another owner's objects: {strangers[:10]}")

    # What the hooks recorded, each distinct request once (a check may be
    # run again on one answer while schemathesis shrinks or replays).
    records = {}
    checked = 0
    try:
        with open(f"{out}/requests.jsonl") as file:
            for line in file:
                record = json.loads(line)
                records[(record["key"], record["status"])] = record
                checked += 1
    except FileNotFoundError:
        pass
    records = list(records.values())
    operations = sorted({r["operation"] for r in records})
    carrying = [r for r in records if r["carried"] and r["as_alpha"]]
    cross = [r for r in records if r["cross_owner_2xx"]]
    errors = [r for r in records if r["status"] >= 500]
    refused = [r for r in records if r["problems"] and not r["cross_owner_2xx"] and r["status"] < 500]
    sent = {op: 0 for op in operations}
    by_operation = {op: 0 for op in operations}
    absent = {op: 0 for op in operations}
    for r in records:
        sent[r["operation"]] += 1
    for r in carrying:
        by_operation[r["operation"]] += 1
        absent[r["operation"]] += r["status"] == 404
    owned = [op for op in operations if owned_path(op)]
    reached = [op for op in owned if by_operation[op]]
    missed = [op for op in owned if not by_operation[op]]
    print("distinct requests by operation: all; as alpha with beta's IDs (or names); of those, answered 404")
    for op in sorted(operations, key=lambda op: (op.split(" ", 1)[1], op)):
        print(f"  {sent[op]:5} {by_operation[op]:5} {absent[op]:5}  {op}")
    print(f"{checked} answers checked, {len(records)} distinct requests, {len(carrying)} carrying beta's IDs or names;"
          f" operations with an owned path parameter that received one of beta's: {len(reached)} of {len(owned)}")
    if not records:
        failed.append("the hooks recorded no request (were they loaded?)")
    if missed:
        failed.append("operations with an owned path parameter that never received one of beta's: " + ", ".join(missed))
    for what, found in (("cross-owner 2xx", cross), ("5xx", errors), ("other answers the owners check refused", refused)):
        for r in found[:10]:
            failed.append(f"{what}: {r['operation']}: {r['request']} -> {r['status']}: {'; '.join(r['problems'])}")
    with open(f"{out}/figures.txt", "w") as file:
        file.write(f"{len(records)} {len(carrying)} {len(reached)} {len(owned)} {len(cross)} {len(errors)}\n")
    if failed:
        sys.exit("owners check failed:\n" + "\n".join(failed))
    print(f"beta's work unchanged: {len(after)} reads compared, as beta, before and after"
          f" (beta's lists besides held {len(shared)} objects alpha made and shared)")


if __name__ == "__main__":
    if sys.argv[1] == "setup":
        setup(*sys.argv[2:6])
    elif sys.argv[1] == "verify":
        verify(sys.argv[2])
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
