"""A plan checked against a model before DistributedModelParallel sees it: every table
of the model planned (and nothing else), each table's shards inside its shape and
covering it exactly once, ranks inside the world size."""

import json
import os


class PlanMismatch(ValueError):
    """The plan does not fit the model; `differences` lists what differs, one string each."""

    exit_code = 2

    def __init__(self, differences):
        self.differences = list(differences)
        shown = self.differences[:20]
        more = len(self.differences) - len(shown)
        text = "the plan does not match the model:\n" + "\n".join("  " + d for d in shown)
        if more > 0:
            text += f"\n  ... and {more} more"
        super().__init__(text)


def _load(value):
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        with open(path, encoding="utf-8") as f:
            if path.endswith(".json"):
                return json.load(f)
            import yaml  # only for YAML configs (python3-yaml)
            return yaml.safe_load(f)
    return value


def _model_tables(model):
    """{fqn: (rows, dim)} and the world size (or None) of a shardplan config (a case or
    a model section, a path or a dict) or of a torch module (read as ShardplanPlanner
    reads it)."""
    model = _load(model)
    world_size = None
    if isinstance(model, dict):
        if "model" in model:
            world_size = (model.get("topology") or {}).get("world_size")
            model = model["model"]
        tables = {}
        for module in model.get("modules", []):
            for t in module.get("tables", []):
                tables[f"{module['path']}.{t['name']}"] = (int(t["num_embeddings"]), int(t["embedding_dim"]))
        return tables, world_size
    from .torchrec import module_tables
    return {fqn: (rows, dim) for fqn, (rows, dim) in module_tables(model).items()}, None


def _attr(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _plan_tables(plan):
    """{fqn: {"sharding_type", "ranks", "shards": [(offsets, sizes, rank)]}} and the plan's
    world size (or None) from a plan file (path or dict) or a ShardingPlan."""
    plan = _load(plan)
    out = {}
    if isinstance(plan, dict) and plan.get("schema") == "shardplan.plan/v1":
        for module, tables in plan["plan"].items():
            for name, t in tables.items():
                shards = [(list(s["offsets"]), list(s["sizes"]), int(s["rank"]) if "rank" in s else None)
                          for s in t.get("shards", [])]
                out[f"{module}.{name}"] = {"sharding_type": t["sharding_type"], "ranks": list(t["ranks"]),
                                           "shards": shards}
        return out, plan.get("world_size")
    modules = _attr(plan, "plan", plan)
    for module, tables in dict(modules).items():
        for name, sharding in dict(tables).items():
            spec = _attr(sharding, "sharding_spec")
            shards = []
            for s in (_attr(spec, "shards") or []) if spec is not None else []:
                placement = str(_attr(s, "placement", ""))
                rank = int(placement.split("/")[0].split(":")[1]) if placement.startswith("rank:") else None
                shards.append((list(_attr(s, "shard_offsets")), list(_attr(s, "shard_sizes")), rank))
            sharding_type = _attr(sharding, "sharding_type")
            sharding_type = getattr(sharding_type, "value", sharding_type)
            out[f"{module}.{name}"] = {"sharding_type": str(sharding_type), "ranks": list(_attr(sharding, "ranks") or []),
                                       "shards": shards}
    return out, None


def plan_differences(plan, model, world_size=None):
    """What differs between `plan` and `model`, one string each ([] when the plan fits)."""
    tables, model_world = _model_tables(model)
    planned, plan_world = _plan_tables(plan)
    world = world_size or model_world or plan_world
    differences = []
    for fqn in tables:
        if fqn not in planned:
            differences.append(f"{fqn}: in the model, not in the plan")
    for fqn in planned:
        if fqn not in tables:
            differences.append(f"{fqn}: in the plan, not in the model")
    given = world_size or model_world
    if given and plan_world and int(plan_world) != int(given):
        differences.append(f"world size: the plan is for {plan_world} ranks, the topology has {given}")
    for fqn, (rows, dim) in tables.items():
        p = planned.get(fqn)
        if p is None:
            continue
        if world is not None:
            bad = sorted({r for r in p["ranks"] if not 0 <= int(r) < int(world)})
            if bad:
                differences.append(f"{fqn}: ranks {bad} outside the world size {world}")
        if p["sharding_type"] == "data_parallel" or not p["shards"]:
            continue
        covered = 0
        for offsets, sizes, _ in p["shards"]:
            if len(offsets) != 2 or len(sizes) != 2:
                differences.append(f"{fqn}: a shard of offsets {offsets} and sizes {sizes} is not 2-D")
                continue
            if offsets[0] < 0 or offsets[1] < 0 or offsets[0] + sizes[0] > rows or offsets[1] + sizes[1] > dim:
                differences.append(f"{fqn}: shard at {offsets} of size {sizes} lies outside the table's "
                                   f"shape [{rows}, {dim}]")
            covered += sizes[0] * sizes[1]
        if covered != rows * dim:
            differences.append(f"{fqn}: shards cover {covered} elements, the table [{rows}, {dim}] has {rows * dim}")
    return differences


def validate_plan(plan, model, world_size=None):
    """Raises PlanMismatch naming every difference between `plan` (a plan file path or
    dict, or a ShardingPlan) and `model` (a shardplan config path or dict, or a torch
    module); returns None when the plan fits."""
    differences = plan_differences(plan, model, world_size)
    if differences:
        raise PlanMismatch(differences)
