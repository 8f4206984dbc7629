#!/usr/bin/env python3
"""Adversarial battery for the readers of issue 24 (a2a, pipeline, propagate, sweep, plan files).

Generates hostile inputs for every class the issue lists, plus variations, runs each
against the built binary under a time and memory limit (30 s, 2 GiB address space by
default) and checks the promise of docs/input-limits.md: exit 2 with a positioned
message (file:line:col, or the file alone for a problem of the whole file), or the
right output with exit 0; never a signal, exit 3 or 4, or a timeout.

  python3 scripts/hostile_battery.py                    # every case (a few minutes on 2 cores)
  python3 scripts/hostile_battery.py --quick            # the fast subset ctest runs
  python3 scripts/hostile_battery.py --only stdin,sigfpe --verbose

Prints one line per failing case, then per class: cases, passed, worst wall time and
worst peak RSS. Exits 1 when any case fails.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICKSTART = os.path.join(ROOT, "configs", "quickstart.json")
KJT = os.path.join(ROOT, "configs", "a2a", "kjt.json")
PIPELINE = os.path.join(ROOT, "configs", "pipeline", "transformer.yaml")
PROGRAM = os.path.join(ROOT, "configs", "propagate", "mlp-2layer.json")
MLIR = os.path.join(ROOT, "configs", "propagate", "mlp-2layer.mlir")

# "error: FILE:LINE:COL: ..." (a positioned problem) or "error: FILE: ..." (the file as a whole).
POSITIONED = re.compile(r"^error: (.+?):(\d+):(\d+): ")
WHOLE_FILE = re.compile(r"^error: ([^ :]+): ")


class Result:
    def __init__(self, code, out, err, wall, rss_mib, timed_out):
        self.code, self.out, self.err = code, out, err
        self.wall, self.rss_mib, self.timed_out = wall, rss_mib, timed_out

    def first_error(self):
        for line in self.err.splitlines():
            if line.startswith("error: "):
                return line
        return ""


class Runner:
    def __init__(self, binary, workdir, timeout, mem_bytes):
        self.binary, self.workdir, self.timeout, self.mem = binary, workdir, timeout, mem_bytes

    def limits(self):
        resource.setrlimit(resource.RLIMIT_AS, (self.mem, self.mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def start(self, args, stdin_path=None, stdout=subprocess.PIPE):
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        proc = subprocess.Popen([self.binary] + args, cwd=self.workdir, stdin=stdin, stdout=stdout,
                                stderr=subprocess.PIPE, preexec_fn=self.limits)
        if stdin_path:
            stdin.close()
        return proc

    def finish(self, proc, started):
        """Waits for `proc` (killing it past the timeout); its Result with peak RSS from wait4."""
        out_chunks, err_chunks = [], []

        def drain(stream, into):
            if stream:
                into.append(stream.read())

        readers = [threading.Thread(target=drain, args=(proc.stdout, out_chunks)),
                   threading.Thread(target=drain, args=(proc.stderr, err_chunks))]
        for r in readers:
            r.start()
        timed_out = False
        deadline = started + self.timeout
        status, usage = None, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        proc.returncode = 0  # reaped above: keep Popen from waiting again
        for r in readers:
            r.join()
        wall = time.monotonic() - started
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        out = b"".join(out_chunks).decode("utf-8", "replace")
        err = b"".join(err_chunks).decode("utf-8", "replace")
        return Result(code, out, err, wall, usage.ru_maxrss / 1024, timed_out)

    def run(self, args, stdin_path=None):
        started = time.monotonic()
        return self.finish(self.start(args, stdin_path), started)


class Case:
    """One reproducer: `args` run in the work directory; `expect` is "error" (exit 2,
    positioned), "ok" (exit 0) or "either"; `check(result, workdir)` returns a problem
    or None; `whole_file` lets a message name the file without a position."""

    def __init__(self, klass, name, args, expect="either", stdin=None, check=None, whole_file=False,
                 quick=False, run=None):
        self.klass, self.name, self.args, self.expect = klass, name, args, expect
        self.stdin, self.check, self.whole_file, self.quick, self.custom = stdin, check, whole_file, quick, run


def judge(case, result, workdir):
    """None when `result` keeps the promise, else what went wrong."""
    if result.timed_out:
        return "timed out"
    if result.code < 0:
        return f"killed by signal {-result.code}"
    if result.code in (3, 4):
        return f"exit {result.code}: {result.first_error() or result.err.strip()[:200]}"
    if case.expect == "usage":  # a documented refusal of a flag combination: exit 2, no file to point at
        return None if result.code == 2 and result.first_error() else f"exit {result.code}, expected exit 2"
    if result.code == 1 and case.expect != "ok" and result.first_error():
        pass  # no feasible plan: a result, not a failure (docs: exit codes)
    elif result.code == 0:
        if case.expect == "error":
            return "exit 0, expected exit 2"
    elif result.code == 2:
        if case.expect == "ok":
            return f"exit 2, expected exit 0: {result.first_error()}"
        first = result.first_error()
        if not POSITIONED.match(first) and not (case.whole_file and WHOLE_FILE.match(first)):
            return f"exit 2 without a position: {first or result.err.strip()[:200]!r}"
    else:
        return f"exit {result.code}: {result.err.strip()[:200]}"
    if case.check:
        return case.check(result, workdir)
    return None


# ---- inputs ---------------------------------------------------------------------------

def write(workdir, name, text, mode="w"):
    path = os.path.join(workdir, name)
    with open(path, mode) as f:
        f.write(text)
    return name


def a2a_input(values=None, lengths=None, keys=None, weights=None, splits=None, extra=""):
    """A one-rank a2a input as JSON text; pieces given as JSON text."""
    keys = keys or '["a"]'
    lengths = lengths or "[[1]]"
    values = values or "[7]"
    splits = splits or "[1]"
    w = f', "weights": {weights}' if weights is not None else ""
    return f'{{"splits": {splits}{extra}, "inputs": [{{"rank": 0, "keys": {keys}, "lengths": {lengths}, "values": {values}{w}}}]}}'


def program(mesh, tensors, ops, outputs):
    return json.dumps({"mesh": mesh, "tensors": tensors, "ops": ops, "outputs": outputs})


def pipeline_input(layers, devices=None, skips=None, options=None, batch=8):
    doc = {"layers": layers, "batch_size": batch, "devices": devices or {"count": 2}}
    if skips is not None:
        doc["skips"] = skips
    if options:
        doc["options"] = options
    return json.dumps(doc)


def layer(name, **fields):
    d = {"name": name, "fwd_ms_per_sample": 1.0, "bwd_ms_per_sample": 2.0}
    d.update(fields)
    return d


def no_negative_numbers(result, _):
    if re.search(r'(?<![\w.])-\d', result.out):
        return "a negative number in the output"
    return None


def json_output(check=None):
    def run(result, workdir):
        try:
            doc = json.loads(result.out)
        except ValueError as e:
            return f"output is not JSON: {e}"
        return check(doc) if check else None
    return run


# ---- the classes ------------------------------------------------------------------------

def sigfpe_cases(w):
    cases = []
    subaxes = ["(4611686018427387904)4", "(2305843009213693952)8", "(9223372036854775807)2", "(2)0", "(0)4",
               "(3)4", "(1)18446744073709551616", "(4294967296)4294967296"]
    for i, sub in enumerate(subaxes):
        for where in ("tensor", "output"):
            tensor_sharding = f"[{{a:{sub}}}]" if where == "tensor" else "[{?}]"
            out_sharding = f"[{{a:{sub}}}]" if where == "output" else "[{?}]"
            text = program([["a", 4]], [{"name": "x", "shape": [16], "sharding": tensor_sharding}, {"name": "y"}],
                           [{"name": "t", "kind": "tanh", "operands": ["x"], "results": ["y"]}],
                           [{"tensor": "y", "sharding": out_sharding}])
            f = write(w, f"sigfpe-{i}-{where}.json", text)
            cases.append(Case("sigfpe", f, ["propagate", "--input", f], quick=(i < 2)))
    # The same in MLIR.
    mlir = ('sdy.mesh @mesh = <["a"=4]>\n'
            'func.func @main(%arg0: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a":(4611686018427387904)4}]>})'
            ' -> tensor<16xf32> {\n  %0 = stablehlo.tanh %arg0 : tensor<16xf32>\n  return %0 : tensor<16xf32>\n}\n')
    f = write(w, "sigfpe.mlir", mlir)
    cases.append(Case("sigfpe", f, ["propagate", "--input", f], quick=True))
    return cases


def wrap_cases(w):
    cases = []
    big = 9223372036854775807
    # a2a: lengths that sum past 2^63.
    for name, lengths, values in [
        ("sum", f"[[{big}, 1]]", "[1]"),
        ("two-rows", f"[[{big}], [{big}]]", "[1]"),
        ("half", "[[4611686018427387904, 4611686018427387904]]", "[1]"),
        ("negative", "[[-1, 2]]", "[1]"),
        ("min", "[[-9223372036854775808, 1]]", "[1]"),
    ]:
        keys = '["a", "b"]' if "two" in name else '["a"]'
        f = write(w, f"wrap-a2a-{name}.json", a2a_input(values=values, lengths=lengths, keys=keys,
                                                         splits="[2]" if "two" in name else "[1]"))
        cases.append(Case("wrap-a2a", f, ["a2a", "--input", f], expect="error", quick=True))
    # Across ranks: every rank's lengths fit, their sum does not.
    text = json.dumps({"splits": [1, 0], "inputs": [
        {"rank": r, "keys": ["a"], "lengths": [[4611686018427387904]], "values": []} for r in range(2)]})
    f = write(w, "wrap-a2a-ranks.json", text)
    cases.append(Case("wrap-a2a", f, ["a2a", "--input", f], expect="error"))
    # pipeline: bytes near 2^63, a 1 MB device.
    for name, fields, batch in [
        ("param", {"param_bytes": big}, 8),
        ("activation", {"activation_bytes_per_sample": big}, 8),
        ("act-batch", {"activation_bytes_per_sample": 2 ** 61}, 8),
        ("param-scale", {"param_bytes": 2 ** 60}, 8),
        ("time", {"fwd_ms_per_sample": 1e308}, 8),
        ("negative", {"param_bytes": -5}, 8),
    ]:
        layers = [layer("l0", **fields), layer("l1", **fields)]
        f = write(w, f"wrap-pipeline-{name}.json",
                  pipeline_input(layers, devices={"count": 2, "memory_bytes": 1000000}, batch=batch,
                                 options={"param_scale": 8}))
        check = json_output(lambda d: "fits: true on a 1 MB device" if '"fits": true' in json.dumps(d) else None)
        cases.append(Case("wrap-pipeline", f, ["pipeline", "--input", f], check=lambda r, wd: (
            None if r.code != 0 else (no_negative_numbers(r, wd) or check(r, wd))), quick=True))
    # Many layers whose sum passes 2^62.
    layers = [layer(f"l{i}", param_bytes=2 ** 58) for i in range(64)]
    f = write(w, "wrap-pipeline-sum.json", pipeline_input(layers, devices={"count": 2, "memory_bytes": 1000000}))
    cases.append(Case("wrap-pipeline", f, ["pipeline", "--input", f], expect="error"))
    # propagate: shapes that wrap.
    q = 4611686018427387904
    for name, tensors, ops in [
        ("concat", [{"name": "a", "shape": [q]}, {"name": "b", "shape": [q]}, {"name": "c"}],
         [{"name": "cat", "kind": "concatenate", "operands": ["a", "b"], "results": ["c"], "dimension": 0}]),
        ("concat-max", [{"name": "a", "shape": [big]}, {"name": "b", "shape": [1]}, {"name": "c"}],
         [{"name": "cat", "kind": "concatenate", "operands": ["a", "b"], "results": ["c"], "dimension": 0}]),
        ("reshape", [{"name": "a", "shape": [4294967296, 4294967296]}, {"name": "c", "shape": [1]}],
         [{"name": "r", "kind": "reshape", "operands": ["a"], "results": ["c"]}]),
        ("matmul", [{"name": "a", "shape": [q, q]}, {"name": "b", "shape": [q, q]}, {"name": "c"}],
         [{"name": "m", "kind": "matmul", "operands": ["a", "b"], "results": ["c"]}]),
        ("negative", [{"name": "a", "shape": [-4]}, {"name": "c"}],
         [{"name": "t", "kind": "tanh", "operands": ["a"], "results": ["c"]}]),
    ]:
        outputs = [{"tensor": "c", "sharding": "[{?}]" if name != "matmul" else "[{?}, {?}]"}]
        f = write(w, f"wrap-propagate-{name}.json", program([["x", 2]], tensors, ops, outputs))
        cases.append(Case("wrap-propagate", f, ["propagate", "--input", f],
                          check=lambda r, wd: None if r.code != 0 else no_negative_numbers(r, wd), quick=True))
    return cases


def quickstart_plan(runner, w):
    """The quickstart plan, planned once, as a dict."""
    path = os.path.join(w, "qs-plan.json")
    if not os.path.exists(path):
        shutil.copy(QUICKSTART, os.path.join(w, "qs.json"))
        r = runner.run(["plan", "--config", "qs.json", "-o", "qs-plan.json", "--stats", "none"])
        if r.code != 0:
            sys.exit("cannot plan the quickstart model: " + r.err)
    return json.load(open(path))


def table_of_type(plan, kind):
    for module, tables in plan["plan"].items():
        for name, table in tables.items():
            if table["sharding_type"] == kind:
                return module, name
    return None, None


def world_size_cases(runner, w):
    plan = quickstart_plan(runner, w)
    cases = []
    for world in [2 ** 62, 2 ** 63 - 1, 65537, 65536, 2049, 0, -1]:
        p = json.loads(json.dumps(plan))
        p["topology"]["world_size"] = world
        f = write(w, f"world-{world}.json", json.dumps(p, indent=1))
        cases.append(Case("world-size", f, ["a2a", "--plan", f, "--config", "qs.json"], expect="error",
                          quick=world in (2 ** 62, 65537)))
        cases.append(Case("world-size", "validate " + f, ["validate", "qs.json", "--plan", f], expect="error"))
        cases.append(Case("world-size", "show " + f, ["show", f]))
    # The same through the topology of a case: the planner's own limit.
    cfg = json.load(open(QUICKSTART))
    cfg["topology"]["world_size"] = 2 ** 62
    f = write(w, "world-case.json", json.dumps(cfg))
    cases.append(Case("world-size", f, ["plan", "--config", f], expect="error"))
    return cases


def fast_vs_positioned_cases(runner, w):
    cases = []
    plan = quickstart_plan(runner, w)
    bad = {
        "utf8-value": a2a_input(values='["x\xff"]'),
        "utf8-key": a2a_input(keys='["\xc3"]'),
        "overlong": a2a_input(values='["\xc0\x80"]'),
        "lone-surrogate": a2a_input(values='["\\ud800"]'),
        "lone-low": a2a_input(values='["\\udc00x"]'),
        "inf-weight": a2a_input(weights="[1e999]"),
        "tiny-weight": a2a_input(weights="[1e-999]"),
        "inf-value": a2a_input(values="[1e999]"),
        "nan": a2a_input(weights="[NaN]"),
        "dup-top": a2a_input(extra=', "splits": [1]'),
        "dup-input": a2a_input(values='[7], "values": [8]'),
        "dup-dtypes": a2a_input(extra=', "dtypes": {"values": "int64", "values": "int32"}'),
        "unknown-key": a2a_input(extra=', "splitz": [1]'),
        "trailing": a2a_input() + " x",
        "two-roots": a2a_input() + a2a_input(),
        "bool-value": a2a_input(values="[true]"),
        "float-length": a2a_input(lengths="[[1.5]]"),
        "huge-length": a2a_input(lengths="[[1e30]]"),
        "control-char": a2a_input(values='["a\x01"]'),
        "empty-key": a2a_input(keys='[""]'),
        "bom-middle": a2a_input(values='["\xef\xbb\xbf"]').replace('{"splits"', '{ \xef\xbb\xbf"splits"'),
    }
    for name, text in bad.items():
        # The texts above spell raw bytes as \xNN characters: written as those bytes.
        f = write(w, f"fvp-{name}.json", text.encode("latin-1"), mode="wb")
        cases.append(Case("fast-vs-positioned", f, ["a2a", "--input", f], expect="error", quick=True))
        # The same text as stdin: the same answer.
        cases.append(Case("fast-vs-positioned", f + " (stdin)", ["a2a", "--input", "-"], stdin=f, expect="error"))
    # Clean inputs with every spelling the fast path reads itself.
    clean = {
        "escapes": ('["a\\"b", "\\u00e9", "\\ud83d\\ude00", "\\/", -0, 7, -9223372036854775808, 0]', "[[4], [4]]"),
        "plain": ('[1, 2, 3, "x", "y"]', "[[2, 1], [1, 1]]"),
    }
    for name, (values, lengths) in clean.items():
        text = a2a_input(values=values, lengths=lengths, keys='["a", "b"]', splits="[2]")
        f1 = write(w, f"fvp-clean-{name}.json", text)
        cases.append(Case("fast-vs-positioned", f1, ["a2a", "--input", f1], expect="ok", quick=True))
    # Same output for a clean input and its twin that only the positioned reader takes.
    twin_a = a2a_input(values='["\\u00e9", "\\ud83d\\ude00", -0, 5]', lengths="[[2, 2]]", weights="[1, -0, 2.5e-1, 7]")
    twin_b = twin_a.replace('"lengths": [[2, 2]]', '"lengths": [[2, 2e0]]')
    fa, fb = write(w, "fvp-twin-a.json", twin_a), write(w, "fvp-twin-b.json", twin_b)

    def same_as_twin(result, workdir):
        other = runner.run(["a2a", "--input", fb])
        if other.code != 0:
            return f"the positioned twin failed: {other.first_error()}"
        return None if other.out == result.out else "fast and positioned outputs differ"
    cases.append(Case("fast-vs-positioned", fa + " = " + fb, ["a2a", "--input", fa], expect="ok", check=same_as_twin,
                      quick=True))
    # Files past 64 MiB (sparse), for every reader.
    big = os.path.join(w, "huge.json")
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)
    for args in (["a2a", "--input", "huge.json"], ["pipeline", "--input", "huge.json"],
                 ["propagate", "--input", "huge.json"], ["show", "huge.json"], ["diff", "huge.json", "huge.json"],
                 ["plan", "--config", "huge.json"], ["a2a", "--plan", "huge.json", "--config", "qs.json"],
                 ["sweep", "--config", "qs.json", "--sweep", "huge.json"], ["validate", "huge.json"],
                 ["sweep", "merge", "huge.json"]):
        cases.append(Case("fast-vs-positioned", " ".join(args), args, expect="error", whole_file=True, quick=True))
    # propagate and pipeline: invalid UTF-8, duplicate keys, lone surrogates.
    prog = open(PROGRAM).read()
    for name, text in {
        "utf8": prog.replace('"x"', '"x\xff"', 1),
        "dup": prog.replace('"mesh":', '"ops": [], "mesh":', 1),
        "lone": prog.replace('"x"', '"\\ud800"'),
        "inf": prog.replace("[32, 64]", "[1e999, 64]"),
    }.items():
        f = f"fvp-prop-{name}.json"
        with open(os.path.join(w, f), "wb") as out:
            out.write(text.encode("latin-1") if name == "utf8" else text.encode())
        cases.append(Case("fast-vs-positioned", f, ["propagate", "--input", f], expect="error", quick=True))
    pipe = pipeline_input([layer("l0"), layer("l1")])
    for name, text in {
        "utf8": pipe.replace('"l0"', '"l0\xff"'),
        "dup": pipe.replace('"batch_size"', '"batch_size": 4, "batch_size"'),
        "lone": pipe.replace('"l0"', '"\\udfff"'),
    }.items():
        f = f"fvp-pipe-{name}.json"
        with open(os.path.join(w, f), "wb") as out:
            out.write(text.encode("latin-1") if name == "utf8" else text.encode())
        cases.append(Case("fast-vs-positioned", f, ["pipeline", "--input", f], expect="error", quick=True))
    # Plans: a duplicate key for a2a --plan, a table twice for show/diff, plan against model.
    text = json.dumps(plan)
    dup = text.replace('"topology": {', '"topology": {"world_size": 4, ', 1)
    f = write(w, "fvp-plan-dup.json", dup)
    for args in (["a2a", "--plan", f, "--config", "qs.json"], ["show", f], ["diff", f, f], ["validate", f]):
        cases.append(Case("fast-vs-positioned", " ".join(args), args, expect="error", quick=True))
    module, table = table_of_type(plan, "table_wise")
    twice = json.loads(text)
    twice["plan"][module]["x." + table] = twice["plan"][module][table]
    twice["plan"][module + ".x"] = {table: twice["plan"][module][table]}
    f = write(w, "fvp-plan-twice.json", json.dumps(twice, indent=1))
    for args in (["show", f], ["diff", f, f], ["diff", "qs-plan.json", f], ["validate", f]):
        cases.append(Case("fast-vs-positioned", " ".join(args), args, expect="error", quick=True))
    four = json.loads(text)
    shards = four["plan"][module][table]["shards"]
    shards.extend([shards[0]] * 3)
    huge = json.loads(text)
    huge["plan"][module][table]["shards"][0]["sizes"][0] = 2 ** 62
    neg = json.loads(text)
    neg["plan"][module][table]["shards"][0]["offsets"][0] = -(2 ** 62)
    for name, p in (("tw4", four), ("rows", huge), ("negative-offset", neg)):
        f = write(w, f"fvp-plan-{name}.json", json.dumps(p, indent=1))
        cases.append(Case("fast-vs-positioned", f, ["a2a", "--plan", f, "--config", "qs.json"], expect="error",
                          quick=True))
        cases.append(Case("fast-vs-positioned", "validate " + f, ["validate", "qs.json", "--plan", f], expect="error"))
    # Every plan reader refuses what one refuses: a negative size, offset or storage
    # (a2a --plan reads only the topology and the shards' ranks, offsets and sizes).
    for name, pointer in (("size", ("sizes", 1)), ("offset", ("offsets", 1)), ("hbm", ("storage", "hbm"))):
        p = json.loads(text)
        p["plan"][module][table]["shards"][0][pointer[0]][pointer[1]] = -3
        f = write(w, f"fvp-plan-neg-{name}.json", json.dumps(p, indent=1))
        readers = [["show", f], ["diff", "qs-plan.json", f], ["validate", "qs.json", "--plan", f], ["validate", f]]
        if name != "hbm":
            readers.append(["a2a", "--plan", f, "--config", "qs.json"])
        for args in readers:
            cases.append(Case("fast-vs-positioned", " ".join(args), args, expect="error"))
    # A plan made for another world size than the config's.
    other = json.loads(text)
    other["topology"]["world_size"] = 1
    other["topology"]["devices"] = other["topology"]["devices"][:1]
    f = write(w, "fvp-plan-world1.json", json.dumps(other, indent=1))
    cases.append(Case("fast-vs-positioned", "a2a --plan " + f, ["a2a", "--plan", f, "--config", "qs.json"],
                      expect="error"))
    return cases


def surrogate_cases(runner, w):
    cases = []
    emoji = "\\ud83d\\ude00"
    f = write(w, "sur-a2a.json", a2a_input(keys=f'["{emoji}"]', values=f'["{emoji}x"]'))
    cases.append(Case("surrogates", f, ["a2a", "--input", f], expect="ok", quick=True,
                      check=lambda r, wd: None if "\U0001F600" in r.out or emoji in r.out else "the key is lost"))
    prog = open(PROGRAM).read().replace('"layer1"', f'"layer{emoji}"')
    f = write(w, "sur-prop.json", prog)
    cases.append(Case("surrogates", f, ["propagate", "--input", f], expect="ok", quick=True))
    pipe = pipeline_input([layer(f"l{emoji}"), layer("l1")])
    f = write(w, "sur-pipe.json", pipe)
    cases.append(Case("surrogates", f, ["pipeline", "--input", f], expect="ok", quick=True))
    cfg = open(QUICKSTART).read()
    cfg_doc = json.loads(cfg)
    old = cfg_doc["model"]["modules"][0]["tables"][0]["name"]
    cfg_doc["model"]["modules"][0]["tables"][0]["name"] = "t\U0001F600"
    cfg = json.dumps(cfg_doc).replace(json.dumps(old), json.dumps("t\U0001F600"))  # constraints name it too
    cfg_doc = json.loads(cfg)
    f = write(w, "sur-case.json", json.dumps(cfg_doc))  # ensure_ascii: written as a surrogate pair
    cases.append(Case("surrogates", "plan " + f, ["plan", "--config", f, "-o", "sur-plan.json", "--stats", "none"],
                      expect="ok", quick=True))
    for args in (["show", "sur-plan.json"], ["diff", "sur-plan.json", "sur-plan.json"],
                 ["a2a", "--plan", "sur-plan.json", "--config", f]):
        cases.append(Case("surrogates", " ".join(args), args, expect="ok", quick=True))
    # The plan file rewritten with escapes everywhere (json.dumps' default).
    def rewrite_then(args):
        def run(runner_, wd):
            doc = json.load(open(os.path.join(wd, "sur-plan.json"), encoding="utf-8"))
            with open(os.path.join(wd, "sur-plan-escaped.json"), "w") as out:
                json.dump(doc, out)
            return runner_.run(args)
        return run
    for args in (["show", "sur-plan-escaped.json"], ["a2a", "--plan", "sur-plan-escaped.json", "--config", f]):
        cases.append(Case("surrogates", "escaped " + " ".join(args), args, expect="ok", run=rewrite_then(args)))
    # A sweep grid file with one.
    f2 = write(w, "sur-grid.json", json.dumps({"grid": {"hbm_cap": ["1 GiB"], "partitioner": ["greedy\u00e9"]}}))
    cases.append(Case("surrogates", f2, ["sweep", "--config", "qs.json", "--sweep", f2, "--no-summary"],
                      expect="error"))
    return cases


def long_name_cases(runner, w):
    cases = []
    for length in (1025, 5000, 100000):
        cfg = json.load(open(QUICKSTART))
        name = "n" * length
        cfg["model"]["modules"][0]["tables"][1]["name"] = name
        f = write(w, f"long-{length}.json", json.dumps(cfg))
        plan = f"long-{length}-plan.json"
        quick = length == 1025
        cases.append(Case("long-names", f"plan {length}", ["plan", "--config", f, "-o", plan, "--stats", "none"],
                          expect="ok", quick=quick))
        cases.append(Case("long-names", f"show {length}", ["show", plan], expect="ok", quick=quick,
                          check=lambda r, wd: None if "n" * 40 in r.out else "the name is not shown"))
        cases.append(Case("long-names", f"diff {length}", ["diff", plan, plan], expect="ok", quick=quick))
        cases.append(Case("long-names", f"a2a --plan {length}", ["a2a", "--plan", plan, "--config", f], expect="ok",
                          quick=quick, check=lambda r, wd, name=name: None if name in r.out else "the name is lost"))
        cases.append(Case("long-names", f"validate --plan {length}", ["validate", f, "--plan", plan], expect="ok"))
        cases.append(Case("long-names", f"explain {length}", ["explain", "--config", f, "--table", name], expect="ok"))
    return cases


def stdin_cases(runner, w):
    quickstart_plan(runner, w)
    shutil.copy(KJT, os.path.join(w, "kjt.json"))
    shutil.copy(PIPELINE, os.path.join(w, "pipe.yaml"))
    shutil.copy(PROGRAM, os.path.join(w, "prog.json"))
    shutil.copy(MLIR, os.path.join(w, "prog.mlir"))
    pairs = [
        (["plan", "--config", "qs.json", "--stats", "none"], ["plan", "--config", "-", "--stats", "none"], "qs.json"),
        (["validate", "qs.json"], ["validate", "-"], "qs.json"),
        (["enumerate", "--config", "qs.json"], ["enumerate", "--config", "-"], "qs.json"),
        (["explain", "--config", "qs.json", "--table", "t_query"], ["explain", "--config", "-", "--table", "t_query"],
         "qs.json"),
        (["a2a", "--input", "kjt.json"], ["a2a", "--input", "-"], "kjt.json"),
        (["a2a", "--plan", "qs-plan.json", "--config", "qs.json"], ["a2a", "--plan", "-", "--config", "qs.json"],
         "qs-plan.json"),
        (["a2a", "--plan", "qs-plan.json", "--config", "qs.json"], ["a2a", "--plan", "qs-plan.json", "--config", "-"],
         "qs.json"),
        (["pipeline", "--input", "pipe.yaml"], ["pipeline", "--input", "-"], "pipe.yaml"),
        (["propagate", "--input", "prog.json"], ["propagate", "--input", "-"], "prog.json"),
        (["propagate", "--input", "prog.mlir"], ["propagate", "--input", "-"], "prog.mlir"),
        (["show", "qs-plan.json"], ["show", "-"], "qs-plan.json"),
        (["diff", "qs-plan.json", "qs-plan.json"], ["diff", "qs-plan.json", "-"], "qs-plan.json"),
        (["diff", "qs-plan.json", "qs-plan.json"], ["diff", "-", "qs-plan.json"], "qs-plan.json"),
        (["sweep", "--config", "qs.json", "--set", "world_size=1,2", "--no-summary"],
         ["sweep", "--config", "-", "--set", "world_size=1,2", "--no-summary"], "qs.json"),
    ]
    cases = []
    for with_file, with_stdin, source in pairs:
        def same(result, workdir, with_file=with_file, with_stdin=with_stdin, source=source):
            ref = runner.run(with_file)
            if ref.code != 0:
                return f"the file run failed: {ref.first_error()}"
            a, b = ref.out, result.out
            if with_stdin[0] in ("validate", "plan"):  # messages name the input
                a = a.replace(source, "<stdin>")
            if with_stdin[0] == "diff":  # its first line names the inputs
                a, b = a[a.find("\n"):], b[b.find("\n"):]
            if with_stdin[0] == "sweep":  # the rows carry an id of the inputs (their names)
                a = re.sub(r'"sweep":"[^"]*"', "", a)
                b = re.sub(r'"sweep":"[^"]*"', "", b)
            return None if a == b else "stdin and file outputs differ"
        cases.append(Case("stdin", " ".join(with_stdin), with_stdin, stdin=source, expect="ok", check=same,
                          quick=True))
    # sweep takes a case on stdin, not a model (documented): a refusal without a file to point at.
    cases.append(Case("stdin", "sweep --model -", ["sweep", "--model", "-", "--topology", "qs.json", "--set",
                                                   "world_size=1,2"], stdin="qs.json", expect="usage"))
    # A problem in stdin is positioned at <stdin>.
    f = write(w, "stdin-bad.json", '{"splits": [1],\n "inputs": 7}')
    cases.append(Case("stdin", "a2a bad stdin", ["a2a", "--input", "-"], stdin=f, expect="error", quick=True,
                      check=lambda r, wd: None if "<stdin>:2:" in r.first_error() else "not at <stdin>:2"))
    f = write(w, "stdin-bad.yaml", "layers: 7\n")
    cases.append(Case("stdin", "pipeline bad stdin", ["pipeline", "--input", "-"], stdin=f, expect="error"))
    f = write(w, "stdin-empty.txt", "")
    for args in (["a2a", "--input", "-"], ["show", "-"], ["propagate", "--input", "-"], ["pipeline", "--input", "-"],
                 ["plan", "--config", "-"]):
        cases.append(Case("stdin", "empty stdin " + args[0], args, stdin=f, expect="error", whole_file=True))
    return cases


def sweep_output_cases(runner, w):
    quickstart_plan(runner, w)
    grid = ["--set", "world_size=1,2", "--no-summary"]
    cases = [
        Case("sweep-output", "-o /dev/null", ["sweep", "--config", "qs.json"] + grid + ["-o", "/dev/null"], expect="ok",
             quick=True),
        Case("sweep-output", "-o /dev/null csv", ["sweep", "--config", "qs.json"] + grid +
             ["--format", "csv", "-o", "/dev/null"], expect="ok"),
        Case("sweep-output", "-o /dev/stdout (a pipe)", ["sweep", "--config", "qs.json"] + grid + ["-o", "/dev/stdout"],
             expect="ok", quick=True,
             check=lambda r, wd: None if len(r.out.splitlines()) == 2 else "expected 2 rows on the pipe"),
        Case("sweep-output", "--resume -o /dev/null", ["sweep", "--config", "qs.json"] + grid +
             ["--resume", "-o", "/dev/null"]),
        Case("sweep-output", "-o /dev/full", ["sweep", "--config", "qs.json"] + grid + ["-o", "/dev/full"],
             whole_file=True),  # "error: /dev/full: writing the sweep's rows failed: ..."
    ]
    for other in ("a2a", "pipeline", "propagate", "show", "plan"):
        args = {"a2a": ["a2a", "--input", KJT], "pipeline": ["pipeline", "--input", PIPELINE],
                "propagate": ["propagate", "--input", PROGRAM], "show": ["show", "qs-plan.json"],
                "plan": ["plan", "--config", "qs.json", "--stats", "none"]}[other]
        cases.append(Case("sweep-output", f"{other} -o /dev/null", args + ["-o", "/dev/null"], expect="ok"))
        cases.append(Case("sweep-output", f"{other} -o /dev/stdout", args + ["-o", "/dev/stdout"], expect="ok",
                          check=lambda r, wd: None if r.out else "nothing written to the pipe"))

    def fifo(runner_, wd, fmt="jsonl"):
        path = os.path.join(wd, f"rows-{fmt}.fifo")
        if os.path.exists(path):
            os.unlink(path)
        os.mkfifo(path)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(path, "rb").read()))
        reader.start()
        r = runner_.run(["sweep", "--config", "qs.json"] + grid + ["--format", fmt, "-o", path])
        if r.code != 0 and reader.is_alive():
            open(path, "wb").close()  # unblock the reader
        reader.join()
        expected = 2 if fmt == "jsonl" else 3
        if r.code == 0 and (not got or len(got[0].decode().splitlines()) != expected):
            r.code, r.err = 99, f"the FIFO got {got[0][:200] if got else b''!r}, expected {expected} lines"
        if r.code == 0 and not stat_is_fifo(path):
            r.code, r.err = 99, "the FIFO was replaced by a file"
        return r
    cases.append(Case("sweep-output", "-o FIFO", [], expect="ok", run=fifo, quick=True))
    cases.append(Case("sweep-output", "-o FIFO csv", [], expect="ok", run=lambda r, wd: fifo(r, wd, "csv")))
    return cases


def stat_is_fifo(path):
    import stat
    return stat.S_ISFIFO(os.stat(path).st_mode)


def merge_resume_cases(runner, w):
    quickstart_plan(runner, w)
    grid = ["--set", "world_size=1,2,4"]
    r = runner.run(["sweep", "--config", "qs.json"] + grid + ["--no-summary", "-o", "rows.jsonl"])
    if r.code != 0:
        sys.exit("cannot run the reference sweep: " + r.err)
    rows = open(os.path.join(w, "rows.jsonl"), "rb").read()
    lines = rows.split(b"\n")
    first, rest = lines[0], b"\n".join(lines[1:])
    corrupt = {
        "nul": first + b"\0junk\n" + rest,
        "cr": first + b"\r\n" + rest,
        "two-objects": first + first + b"\n" + rest,
        "trailing-space": first + b" \n" + rest,
        "nul-only": b"\0" * 100 + b"\n" + rest,
        "not-json": b"hello\n" + rest,
        "bad-utf8": first[:-2] + b"\xff" + first[-2:] + b"\n" + rest,
        "array": b"[" + first + b"]\n" + rest,
        "other-sweep": first.replace(b'"sweep":"', b'"sweep":"0', 1) + b"\n" + rest,
        "dup-key": first[:-1] + b',"index":0}\n' + rest,
    }
    cases = []
    for name, text in corrupt.items():
        f = write(w, f"corrupt-{name}.jsonl", text, mode="wb")
        cases.append(Case("merge-resume", "merge " + name, ["sweep", "merge", f], expect="error", quick=True))

        def resume(runner_, wd, f=f, text=text):
            with open(os.path.join(wd, f), "wb") as out:  # --resume may rewrite it
                out.write(text)
            return runner_.run(["sweep", "--config", "qs.json"] + grid + ["--no-summary", "--resume", "-o", f])
        cases.append(Case("merge-resume", "resume " + name, [], expect="error", run=resume, quick=True))
    # A row cut short (an interrupted run): resume plans it again, merge refuses it.
    cut = rows[: len(rows) - 20]
    f = write(w, "cut.jsonl", cut, mode="wb")
    cases.append(Case("merge-resume", "merge cut", ["sweep", "merge", f], expect="error"))

    def resume_cut(runner_, wd):
        with open(os.path.join(wd, "cut-resume.jsonl"), "wb") as out:
            out.write(cut)
        r = runner_.run(["sweep", "--config", "qs.json"] + grid + ["--no-summary", "--resume", "-o", "cut-resume.jsonl"])
        if r.code == 0 and open(os.path.join(wd, "cut-resume.jsonl"), "rb").read() != rows:
            r.code, r.err = 99, "the resumed file differs from an uninterrupted run's"
        return r
    cases.append(Case("merge-resume", "resume cut", [], expect="ok", run=resume_cut))
    # CSV: the same corruptions.
    r = runner.run(["sweep", "--config", "qs.json"] + grid + ["--no-summary", "--format", "csv", "-o", "rows.csv"])
    csv = open(os.path.join(w, "rows.csv"), "rb").read().split(b"\n")
    for name, text in {"nul": csv[0] + b"\n" + csv[1] + b"\0x\n" + b"\n".join(csv[2:]),
                       "cr": csv[0] + b"\n" + csv[1] + b"\r\n" + b"\n".join(csv[2:])}.items():
        f = write(w, f"corrupt-{name}.csv", text, mode="wb")
        cases.append(Case("merge-resume", "merge csv " + name, ["sweep", "merge", f], expect="error"))
    return cases


def concurrent_cases(runner, w):
    quickstart_plan(runner, w)
    grid = ["--set", "world_size=1,2,4,8", "--set", "hbm_cap=1 GiB,2 GiB,4 GiB,8 GiB", "--no-summary"]

    def both(runner_, wd, fmt="jsonl", resume=False):
        out = os.path.join(wd, f"both.{fmt}")
        if os.path.exists(out):
            os.unlink(out)
        extra = ["--format", fmt] + (["--resume"] if resume else [])
        started = time.monotonic()
        procs = [runner_.start(["sweep", "--config", "qs.json"] + grid + extra + ["-o", out]) for _ in range(2)]
        results = [runner_.finish(p, started) for p in procs]
        text = open(out, "rb").read() if os.path.exists(out) else b""
        ref = runner_.run(["sweep", "--config", "qs.json"] + grid + ["--format", fmt])
        codes = sorted(r.code for r in results)
        worst = max(results, key=lambda r: r.wall)
        res = Result(0, "", "", worst.wall, max(r.rss_mib for r in results), any(r.timed_out for r in results))
        if codes not in ([0, 0], [0, 2]):
            bad = [r for r in results if r.code not in (0, 2)][0] if any(r.code not in (0, 2) for r in results) else results[0]
            res.code, res.err = bad.code if bad.code != 2 else 99, f"exit codes {codes}: {bad.err[:200]}"
        elif codes == [0, 2]:
            loser = [r for r in results if r.code == 2][0]
            if "another sweep" not in loser.err:
                res.code, res.err = 99, f"the refused sweep said {loser.err[:200]!r}"
        if res.code == 0 and text != ref.out.encode():
            res.code, res.err = 99, "the file is not one whole run's output"
        return res
    return [Case("concurrent", "two sweeps -o one jsonl", [], expect="ok", run=both, quick=True),
            Case("concurrent", "two sweeps -o one csv", [], expect="ok", run=lambda r, wd: both(r, wd, "csv")),
            Case("concurrent", "two sweeps --resume -o one", [], expect="ok",
                 run=lambda r, wd: both(r, wd, "jsonl", True))]


def stale_output_cases(runner, w):
    quickstart_plan(runner, w)
    bad = write(w, "stale-bad.json", '{"nothing": 1}')
    commands = [
        ["plan", "--config", bad], ["validate", bad], ["enumerate", "--config", bad],
        ["explain", "--config", bad, "--table", "x"], ["explain", "--config", "qs.json", "--table", "no_such_table"],
        ["a2a", "--input", bad], ["a2a", "--plan", bad, "--config", "qs.json"],
        ["a2a", "--plan", "qs-plan.json", "--config", bad], ["pipeline", "--input", bad],
        ["propagate", "--input", bad], ["show", bad], ["diff", bad, "qs-plan.json"],
        ["diff", "qs-plan.json", bad], ["sweep", "--config", bad, "--set", "world_size=1"],
        ["sweep", "merge", bad],
    ]
    cases = []
    for args in commands:
        def run(runner_, wd, args=args):
            out = os.path.join(wd, "stale.out")
            with open(out, "w") as f:
                f.write("an earlier run's output\n")
            r = runner_.run(args + ["-o", "stale.out"])
            if r.code != 0 and os.path.exists(out):
                r.err = "error: stale.out:1:1: (battery) the earlier output is still there\n" + r.err
                r.code = 99
            return r
        if args[0] == "validate":
            continue  # validate writes no output file
        expect = "usage" if "no_such_table" in args else "error"  # a flag's problem: no file to point at
        cases.append(Case("stale-output", " ".join(args), [], expect=expect, run=run, quick=True))
    # A failing sweep must not remove the file another sweep is writing (it holds the lock).
    def locked(runner_, wd):
        import fcntl
        path = os.path.join(wd, "locked.jsonl")
        with open(path, "w") as f:
            f.write("the other sweep's rows\n")
        with open(path) as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            r = runner_.run(["sweep", "--config", bad, "--set", "world_size=1", "-o", "locked.jsonl"])
        if not os.path.exists(path):
            r.code, r.err = 99, "the other sweep's file was removed"
        return r
    cases.append(Case("stale-output", "failing sweep, -o locked by another", [], expect="error", run=locked,
                      quick=True))
    return cases


def quadratic_cases(runner, w):
    cases = []
    # 100 000 pipeline skips over 1 000 layers.
    layers = [layer(f"l{i}") for i in range(1000)]
    skips = [{"name": f"s{i}", "stash": f"l{i % 500}", "pop": f"l{500 + i % 500}", "bytes_per_sample": 1}
             for i in range(100000)]
    f = write(w, "quad-skips.json", pipeline_input(layers, skips=skips, devices={"count": 4}))
    cases.append(Case("quadratic", "100 000 pipeline skips", ["pipeline", "--input", f]))
    # 100 000 mesh axes.
    mesh = [[f"a{i}", 1] for i in range(100000)]
    f = write(w, "quad-mesh.json", program(mesh, [{"name": "x", "shape": [8]}, {"name": "y"}],
                                           [{"name": "t", "kind": "tanh", "operands": ["x"], "results": ["y"]}],
                                           [{"tensor": "y", "sharding": "[{?}]"}]))
    cases.append(Case("quadratic", "100 000 mesh axes", ["propagate", "--input", f]))
    mlir = "sdy.mesh @mesh = <[" + ", ".join(f'"a{i}"=1' for i in range(100000)) + "]>\n" + \
        "func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.tanh %arg0 : tensor<8xf32>\n" \
        "  return %0 : tensor<8xf32>\n}\n"
    f = write(w, "quad-mesh.mlir", mlir)
    cases.append(Case("quadratic", "100 000 mesh axes (MLIR)", ["propagate", "--input", f]))
    # A 10^6-value sweep grid (read whole, one point planned).
    quickstart_plan(runner, w)
    f = write(w, "quad-grid.json", json.dumps({"grid": {"batch_size": list(range(1, 1000001))}}))
    cases.append(Case("quadratic", "10^6-value grid file", ["sweep", "--config", "qs.json", "--sweep", f,
                                                            "--shard", "0/1000000", "--no-summary"]))
    cases.append(Case("quadratic", "10^6-value grid range", ["sweep", "--config", "qs.json", "--set",
                                                             "batch_size=1..1000000:1", "--shard", "0/1000000",
                                                             "--no-summary"]))
    cases.append(Case("quadratic", "10^6+1-value grid", ["sweep", "--config", "qs.json", "--set",
                                                         "batch_size=1..1000000:1", "--set", "world_size=1,2",
                                                         "--shard", "0/1000000", "--no-summary"], expect="usage"))  # --set flags: no file
    # 40 000 layers into 20 000 stages.
    layers = [layer(f"l{i}", param_bytes=1000) for i in range(40000)]
    f = write(w, "quad-stages.json", pipeline_input(layers, devices={"count": 20000}, options={"stages": 20000}))
    cases.append(Case("quadratic", "40 000 layers into 20 000 stages", ["pipeline", "--input", f]))
    f = write(w, "quad-stages-bp.json", pipeline_input(layers, devices={"count": 20000},
                                                       options={"stages": 20000, "balance_algorithm": "blockpartition"}))
    cases.append(Case("quadratic", "40 000 layers, blockpartition", ["pipeline", "--input", f]))
    # At the balancing limit: layers x stages = 10^7.
    layers = [layer(f"l{i}", param_bytes=1000 + i % 7) for i in range(10000)]
    f = write(w, "quad-limit.json", pipeline_input(layers, devices={"count": 1000}, options={"stages": 1000}))
    cases.append(Case("quadratic", "10 000 layers into 1 000 stages", ["pipeline", "--input", f]))
    f = write(w, "quad-limit-suggest.json", pipeline_input(layers[:2000], devices={"count": 64}))
    cases.append(Case("quadratic", "pipeline --suggest, 2 000 layers", ["pipeline", "--input", f, "--suggest"]))
    # Micro-batches: a billion chunks, and a schedule just past the step limit.
    for chunks, schedule, v in ((10 ** 9, "1f1b", 1), (100000, "interleaved_1f1b", 4), (100000, "zbv_zero_bubble", 2)):
        f = write(w, f"quad-chunks-{chunks}-{schedule}.json",
                  pipeline_input([layer(f"l{i}") for i in range(16)], devices={"count": 4}, batch=chunks,
                                 options={"chunks": chunks, "schedule": schedule, "virtual_stages": v}))
        cases.append(Case("quadratic", f"{chunks} chunks, {schedule}", ["pipeline", "--input", f], expect="error"))
    f = write(w, "quad-suggest-batch.json",
              pipeline_input([layer(f"l{i}") for i in range(26)], devices={"count": 26}, batch=1048576))
    cases.append(Case("quadratic", "pipeline --suggest, batch 2^20", ["pipeline", "--input", f, "--suggest"]))
    # a2a at size: 64 ranks' lengths, long key lists.
    keys = [f"k{i}" for i in range(20000)]
    text = json.dumps({"splits": [10000, 10000], "inputs": [
        {"rank": r, "keys": keys, "lengths": [[0]] * 20000, "values": []} for r in range(2)]})
    f = write(w, "quad-a2a-keys.json", text)
    cases.append(Case("quadratic", "a2a 20 000 keys", ["a2a", "--input", f, "-o", "/dev/null"]))
    # A million empty length rows / one huge list.
    f = write(w, "quad-a2a-values.json", a2a_input(values="[" + ",".join(["1"] * 3000000) + "]",
                                                    lengths="[[3000000]]"))
    cases.append(Case("quadratic", "a2a 3 000 000 values", ["a2a", "--input", f, "-o", "/dev/null"], expect="ok"))
    f = write(w, "quad-a2a-values-bad.json", a2a_input(values="[" + ",".join(["1"] * 3000000) + ',"\\ud800"]',
                                                        lengths="[[3000001]]"))
    cases.append(Case("quadratic", "a2a 3 000 000 values, last bad", ["a2a", "--input", f], expect="error"))
    # More ranks in an a2a input than its limit: one error, not ranks x ranks of work.
    for ranks in (2049, 20000):
        inputs = [{"rank": r, "keys": ["A"], "lengths": [[1]], "values": [f"v{r}"]} for r in range(ranks)]
        f = write(w, f"quad-a2a-ranks-{ranks}.json", json.dumps({"splits": [1] + [0] * (ranks - 1), "inputs": inputs}))
        cases.append(Case("quadratic", f"a2a {ranks} ranks", ["a2a", "--input", f], expect="error"))
    # Many propagate ops in a chain.
    n = 100000
    tensors = [{"name": "t0", "shape": [8, 8], "sharding": "[{x}, {?}]"}] + [{"name": f"t{i}"} for i in range(1, n + 1)]
    ops = [{"name": f"o{i}", "kind": "tanh", "operands": [f"t{i}"], "results": [f"t{i + 1}"]} for i in range(n)]
    f = write(w, "quad-ops.json", program([["x", 2]], tensors, ops, [{"tensor": f"t{n}", "sharding": "[{?}, {?}]"}]))
    cases.append(Case("quadratic", "propagate 100 000 ops", ["propagate", "--input", f, "-o", "/dev/null"]))
    # Deep nesting and many values for every JSON reader.
    deep = "[" * 100000 + "]" * 100000
    f = write(w, "quad-deep.json", deep)
    for args in (["a2a", "--input", f], ["pipeline", "--input", f], ["propagate", "--input", f], ["show", f]):
        cases.append(Case("quadratic", "deep " + args[0], args, expect="error", quick=True))
    many = '{"x": [' + ",".join(["0"] * 5000000) + "]}"
    f = write(w, "quad-many.json", many)
    for args in (["a2a", "--input", f], ["pipeline", "--input", f], ["propagate", "--input", f], ["show", f]):
        cases.append(Case("quadratic", "5 000 000 values " + args[0], args, expect="error"))
    return cases


CLASSES = {
    "sigfpe": lambda r, w: sigfpe_cases(w),
    "wrap": lambda r, w: wrap_cases(w),
    "world-size": world_size_cases,
    "fast-vs-positioned": fast_vs_positioned_cases,
    "surrogates": surrogate_cases,
    "long-names": long_name_cases,
    "stdin": stdin_cases,
    "sweep-output": sweep_output_cases,
    "merge-resume": merge_resume_cases,
    "concurrent": concurrent_cases,
    "stale-output": stale_output_cases,
    "quadratic": quadratic_cases,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "shardplan"))
    parser.add_argument("--quick", action="store_true", help="only the fast subset (ctest)")
    parser.add_argument("--only", default="", help="comma-separated class names: " + ", ".join(CLASSES))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--memory-gib", type=float, default=2.0, help="address-space limit per case")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--verbose", action="store_true", help="a line for every case")
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"no binary at {binary}")
    workdir = tempfile.mkdtemp(prefix="shardplan-hostile-")
    runner = Runner(binary, workdir, args.timeout, int(args.memory_gib * (1 << 30)))
    shutil.copy(QUICKSTART, os.path.join(workdir, "qs.json"))
    wanted = [c for c in args.only.split(",") if c] or list(CLASSES)
    stats = {}
    failures = 0
    try:
        for klass in wanted:
            for case in CLASSES[klass](runner, workdir):
                if args.quick and not case.quick:
                    continue
                if case.custom:
                    started = time.monotonic()
                    result = case.custom(runner, workdir)
                    result.wall = max(result.wall, 0.0) if result.wall else time.monotonic() - started
                else:
                    stdin = os.path.join(workdir, case.stdin) if case.stdin and not os.path.isabs(case.stdin) \
                        else case.stdin
                    result = runner.run(case.args, stdin)
                problem = judge(case, result, workdir)
                s = stats.setdefault(case.klass, {"cases": 0, "passed": 0, "wall": 0.0, "rss": 0.0,
                                                  "exit0": 0, "exit2": 0, "slowest": ""})
                s["cases"] += 1
                s["passed"] += problem is None
                s["exit0"] += result.code == 0
                s["exit2"] += result.code == 2
                if result.wall > s["wall"]:
                    s["wall"], s["slowest"] = result.wall, case.name
                s["rss"] = max(s["rss"], result.rss_mib)
                if problem:
                    failures += 1
                    print(f"FAIL [{case.klass}] {case.name}: {problem}", flush=True)
                elif args.verbose:
                    print(f"ok   [{case.klass}] {case.name}: exit {result.code} {result.wall:.2f}s "
                          f"{result.rss_mib:.0f} MiB {result.first_error()[:120]}", flush=True)
    finally:
        if args.keep:
            print(f"work directory: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"{'class':20s} {'cases':>5s} {'passed':>6s} {'exit 0':>6s} {'exit 2':>6s} {'worst s':>8s} "
          f"{'worst MiB':>9s}  slowest")
    total = passed = 0
    worst_wall = worst_rss = 0.0
    for klass, s in stats.items():
        total += s["cases"]
        passed += s["passed"]
        worst_wall, worst_rss = max(worst_wall, s["wall"]), max(worst_rss, s["rss"])
        print(f"{klass:20s} {s['cases']:5d} {s['passed']:6d} {s['exit0']:6d} {s['exit2']:6d} {s['wall']:8.2f} "
              f"{s['rss']:9.0f}  {s['slowest']}")
    print(f"{'all':20s} {total:5d} {passed:6d} {'':6s} {'':6s} {worst_wall:8.2f} {worst_rss:9.0f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
