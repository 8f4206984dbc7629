"""shardplan from Python: the planner's C++ library in-process.

    import shardplan
    plan = shardplan.plan("configs/quickstart.json")                 # the plan file, as a dict
    plan = shardplan.plan(case_dict, partitioner="optimizing", hbm_cap="40 GiB")
    options = shardplan.enumerate(case_dict)                         # `shardplan enumerate`'s JSON
    why = shardplan.explain(case_dict, table="sparse.ebc.t_query")   # `shardplan explain --format json`

A config is a path (a one-file case, YAML or JSON) or a dict with the same keys
(model, topology, planner); or give model=, topology= and planner= (paths, or dicts).
Keyword options are the CLI's flags with '_' for '-' (partitioner=, proposers=,
storage_reservation=, reservation_percentage=, sort_by=, greedy_threshold=,
time_budget=, batch_size=, world_size=, local_world_size=, hbm_cap=, ddr_cap=).
Bad input raises InputError (a ValueError, exit_code 2, the CLI's positioned
message); no feasible plan raises PlannerError (kind, stage, fixes).
`dumps(plan)` is the text `shardplan plan` writes, byte for byte.
See docs/python.md.
"""

import json
import logging
import operator
import os

from ._errors import InputError, PlannerError, ShardplanError
from ._validate import PlanMismatch, validate_plan, plan_differences

try:
    from . import _core
except ImportError as _error:  # the sources without the built module (scripts/ use the pure parts)
    _core = None
    _core_error = _error

__all__ = ["plan", "plan_with_stats", "enumerate", "explain", "dumps", "InputError", "PlannerError", "ShardplanError",
           "validate_plan", "plan_differences", "PlanMismatch", "logger"]

logger = logging.getLogger("shardplan")

# keyword -> the CLI flag (for messages) and how its value is checked.
_TEXT, _INT, _FLOAT, _SIZE = "text", "int", "float", "size"
_PLAN_OPTIONS = {
    "partitioner": _TEXT, "proposers": _TEXT, "storage_reservation": _TEXT, "reservation_percentage": _FLOAT,
    "sort_by": _TEXT, "greedy_threshold": _INT, "time_budget": _FLOAT, "batch_size": _INT, "world_size": _INT,
    "local_world_size": _INT, "hbm_cap": _SIZE, "ddr_cap": _SIZE,
}
# enumerate reads the model and the topology only (as the CLI's enumerate).
_ENUMERATE_OPTIONS = {k: _PLAN_OPTIONS[k] for k in ("batch_size", "world_size", "local_world_size", "hbm_cap",
                                                    "ddr_cap")}


def _need_core():
    if _core is None:
        raise ImportError("shardplan's C++ module (shardplan._core) is not built or not installed "
                          f"beside this package ({_core_error}); build it with scripts/quickstart.sh")
    return _core


def _flag(name):
    return "--" + name.replace("_", "-")


def _options(given, allowed, function):
    out = {}
    for name, value in given.items():
        if name not in allowed:
            import difflib
            close = difflib.get_close_matches(name, list(allowed), n=1)
            hint = f", did you mean '{close[0]}'?" if close else f" (known: {', '.join(sorted(allowed))})"
            raise TypeError(f"{function}() got an unexpected keyword argument '{name}'{hint}")
        if value is None:
            continue
        kind = allowed[name]
        try:
            if kind == _INT:
                if isinstance(value, bool):
                    raise TypeError
                value = operator.index(value)
            elif kind == _FLOAT:
                if isinstance(value, bool):
                    raise TypeError
                value = float(value)
            elif kind == _SIZE:
                # bytes as an integer, or text such as "80 GiB" (as the CLI's flag)
                if isinstance(value, bool):
                    raise TypeError
                value = f"{operator.index(value)}B" if not isinstance(value, str) else value
            elif name == "proposers" and not isinstance(value, str):
                value = ",".join(str(v) for v in value)
            elif not isinstance(value, str):
                raise TypeError
        except (TypeError, ValueError):
            expected = {"int": "an integer", "float": "a number", "size": "bytes or a size such as '80 GiB'",
                        "text": "a name"}[kind]
            message = f"{_flag(name)}: expected {expected}, found {value!r}"
            raise InputError(message, [{"file": "", "line": 0, "col": 0, "key_path": _flag(name),
                                        "message": f"expected {expected}, found {value!r}"}]) from None
        out[name] = value
    return out


def _is_path(value):
    return isinstance(value, (str, os.PathLike))


def _text_of(config):
    # Indented, so a problem's line:col points at a line of this text.
    return json.dumps(config, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _source(config, model, topology, planner):
    """What the C++ module loads: a case file, three files, or a dict as JSON text."""
    if config is not None:
        if model is not None or topology is not None or planner is not None:
            raise TypeError("give config, or model= and topology= (and planner=), not both")
        if _is_path(config):
            return {"config": os.fspath(config)}
        if isinstance(config, dict):
            return {"text": _text_of(config), "name": "<config dict>.json"}
        raise TypeError(f"config must be a path or a dict, not {type(config).__name__}")
    if model is None or topology is None:
        raise TypeError("give config (a path or a dict), or model= and topology= (and planner=)")
    parts = {"model": model, "topology": topology}
    if planner is not None:
        parts["planner"] = planner
    if all(_is_path(v) for v in parts.values()):
        return {k: os.fspath(v) for k, v in parts.items()}
    if all(isinstance(v, dict) for v in parts.values()):
        return {"text": _text_of(parts), "name": "<config dict>.json"}
    raise TypeError("model=, topology= and planner= must be all paths or all dicts")


def plan(config=None, *, model=None, topology=None, planner=None, threads=0, stats=None, **options):
    """Plans as `shardplan plan` does and returns the plan file as a dict (dumps() gives
    the file's text). stats: None (default) logs nothing; "summary" logs the short summary,
    "torchrec" EmbeddingStats exactly as torchrec logs it, line by line, both on the
    `shardplan` logger at INFO ("both" logs the two)."""
    return plan_with_stats(config, model=model, topology=topology, planner=planner, threads=threads,
                           stats=stats, **options)[0]


def plan_with_stats(config=None, *, model=None, topology=None, planner=None, threads=0, stats=None,
                    _destination="the returned dict", **options):
    """plan(), returning (plan dict, EmbeddingStats text, summary text)."""
    if stats not in (None, "none", "summary", "torchrec", "both"):
        raise InputError(f"--stats: expected summary, torchrec, both or none, found {stats!r}")
    source = _source(config, model, topology, planner)
    result, stats_text, summary = _need_core().plan(source, _options(options, _PLAN_OPTIONS, "plan"),
                                                    operator.index(threads), stats not in (None, "none"),
                                                    _destination)
    if stats in ("torchrec", "both"):
        for line in stats_text.splitlines():
            logger.info(line)
    if stats in ("summary", "both"):
        for line in summary.splitlines():
            logger.info(line)
    return result, stats_text, summary


def enumerate(config=None, *, model=None, topology=None, planner=None, **options):  # noqa: A001
    """Every sharding option with torchrec's estimates (`shardplan enumerate`'s JSON)."""
    source = _source(config, model, topology, planner)
    return _need_core().enumerate(source, _options(options, _ENUMERATE_OPTIONS, "enumerate"))


def explain(config=None, table=None, *, model=None, topology=None, planner=None, **options):
    """Why `table` (an fqn, or a name one module holds) got its sharding option
    (`shardplan explain --format json`). Without a feasible plan it raises PlannerError
    whose `explanation` explains the tables that fit no rank."""
    source = _source(config, model, topology, planner)
    return _need_core().explain(source, _options(options, _PLAN_OPTIONS, "explain"), table or "")


def dumps(document):
    """The text the CLI writes for `document` (a plan, enumerate or explain dict), byte for
    byte: rendered by the CLI's own JSON writer, whose numbers can have more digits than
    Python's repr (json.loads of either text gives the same values)."""
    return _need_core().dumps(document)
