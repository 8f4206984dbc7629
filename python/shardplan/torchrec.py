"""torchrec in, torchrec out: ShardplanPlanner is a drop-in for torchrec's
EmbeddingShardingPlanner that plans with shardplan in-process.

    from shardplan.torchrec import ShardplanPlanner
    planner = ShardplanPlanner(topology=topology, batch_size=512, constraints=constraints)
    plan = planner.collective_plan(model, sharders, pg)   # as EmbeddingShardingPlanner's
    model = DistributedModelParallel(model, plan=plan, sharders=sharders, ...)

Only attributes are read (torchrec's names), so objects shaped like torchrec's work
where torchrec is not installed; the ShardingPlan built is torchrec's own classes when
torchrec imports, else stand-ins with the same attribute names (ShardingPlan.plan,
ParameterSharding.sharding_spec.shards[i].shard_offsets, ...). The conversion helpers
(case_config, model_config, topology_config) turn torchrec objects into a shardplan
config without planning. See docs/python.md.
"""

import logging

from ._errors import InputError

logger = logging.getLogger("shardplan.torchrec")

# ---------------------------------------------------------------- names


def _name(value):
    """A torchrec enum (or a string) as shardplan's lower-case name."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value.lower()
    inner = getattr(value, "value", None)
    if isinstance(inner, str):  # ShardingType, EmbeddingComputeKernel, DataType
        return inner.lower()
    return value.name.lower()  # CacheAlgorithm, BoundsCheckMode: int-valued enums


def _class_name(obj):
    return type(obj).__name__


class UnsupportedObject(InputError):
    """A torchrec object ShardplanPlanner cannot map onto shardplan's options."""

    def __init__(self, what, obj, why=""):
        text = f"{what}: cannot map {_class_name(obj)} onto shardplan's options{': ' + why if why else ''}"
        super().__init__(text, [{"file": "", "line": 0, "col": 0, "key_path": what, "message": text}])


# ---------------------------------------------------------------- config sections


def _module_tables(module, kind):
    """(kind, table configs) of an EBC, an EC, or a list of configs."""
    if hasattr(module, "embedding_bag_configs"):
        return "embedding_bag", list(module.embedding_bag_configs())
    if hasattr(module, "embedding_configs"):
        return "embedding", list(module.embedding_configs())
    return kind, list(module)


def _table(config):
    table = {"name": config.name, "num_embeddings": int(config.num_embeddings),
             "embedding_dim": int(config.embedding_dim)}
    data_type = getattr(config, "data_type", None)
    if data_type is not None:
        table["data_type"] = _name(data_type)
    features = list(getattr(config, "feature_names", None) or [])
    if features:
        table["feature_names"] = features
    return table


_CONSTRAINT_FIELDS = ["sharding_types", "compute_kernels", "min_partition", "pooling_factors", "num_poolings",
                      "batch_sizes", "is_weighted", "enforce_hbm", "stochastic_rounding", "bounds_check_mode",
                      "output_dtype", "device_group"]
_CACHE_FIELDS = ["algorithm", "load_factor", "reserved_memory", "precision", "prefetch_pipeline"]


def _cache(cache):
    params = {}
    for field in _CACHE_FIELDS:
        value = getattr(cache, field, None)
        if value is not None:
            params[field] = _name(value) if field in ("algorithm", "precision") else value
    return params


def _constraint(constraint):
    out = {}
    for field in _CONSTRAINT_FIELDS:
        value = getattr(constraint, field, None)
        if value is None:
            continue
        if field in ("sharding_types", "compute_kernels"):
            value = [_name(v) for v in value]
        elif field in ("pooling_factors", "num_poolings"):
            value = [float(v) for v in value]
        elif field == "batch_sizes":
            value = [int(v) for v in value]
        elif field in ("bounds_check_mode", "output_dtype", "device_group"):
            value = _name(value)
        out[field] = value
    cache = getattr(constraint, "cache_params", None)
    if cache is not None:
        out["cache_params"] = _cache(cache)
    return out


def model_config(modules, constraints=None, batch_size=512, name=None, dense_parameters=0,
                 kind="embedding_bag"):
    """shardplan's model section: `modules` maps a module path to an EBC/EC or a list of
    table configs (`kind` says which for a list); `constraints` maps a table name to
    torchrec's ParameterConstraints."""
    model = {"batch_size": int(batch_size), "modules": []}
    if name:
        model["name"] = name
    for path, module in modules.items():
        module_kind, configs = _module_tables(module, kind)
        model["modules"].append({"path": path, "kind": module_kind, "tables": [_table(c) for c in configs]})
    if dense_parameters:
        model["dense"] = {"parameters": int(dense_parameters)}
    if constraints:
        model["constraints"] = {table: _constraint(c) for table, c in constraints.items()}
    return model


_BANDWIDTHS = ["hbm_mem_bw", "ddr_mem_bw", "hbm_to_ddr_mem_bw", "intra_host_bw", "inter_host_bw",
               "bwd_compute_multiplier", "weighted_feature_bwd_compute_multiplier",
               "uneven_sharding_perf_multiplier"]


def topology_config(topology):
    """shardplan's topology section from torchrec's Topology (capacities in bytes,
    bandwidths in bytes/ms as torchrec holds them)."""
    out = {"world_size": int(topology.world_size),
           "local_world_size": int(topology.local_world_size),
           "compute_device": _name(topology.compute_device)}
    devices = list(getattr(topology, "devices", None) or [])
    if devices:
        hbm = [int(d.storage.hbm) for d in devices]
        ddr = [int(d.storage.ddr) for d in devices]
        out["hbm_cap"], out["ddr_cap"] = hbm[0], ddr[0]
        if len(set(hbm)) > 1 or len(set(ddr)) > 1:
            out["custom"] = {"hbm_cap": hbm, "ddr_cap": ddr}
    for field in _BANDWIDTHS:
        value = getattr(topology, field, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[field] = value
    return out


def case_config(modules, topology, constraints=None, planner=None, **model_options):
    """One-file case: {"model", "topology", "planner"}."""
    return {"model": model_config(modules, constraints, **model_options),
            "topology": topology_config(topology),
            "planner": dict(planner or {})}


# ---------------------------------------------------------------- walking a module

# The module types torchrec's default sharders shard that shardplan plans, by class
# name: (shardplan's module kind, how to reach the table configs).
_SHARDABLE = {
    "EmbeddingBagCollection": "embedding_bag",
    "FusedEmbeddingBagCollection": "embedding_bag",
    "FeatureProcessedEmbeddingBagCollection": "embedding_bag",
    "EmbeddingCollection": "embedding",
}
# Types torchrec shards that shardplan does not model: planning them would be wrong.
_NOT_PLANNED = {"QuantEmbeddingBagCollection", "QuantEmbeddingCollection", "ManagedCollisionEmbeddingCollection",
                "ManagedCollisionEmbeddingBagCollection", "EmbeddingTower", "EmbeddingTowerCollection",
                "QuantManagedCollisionEmbeddingCollection", "ShardedQuantEmbeddingBagCollection"}


def _module_type_name(sharder):
    module_type = getattr(sharder, "module_type", None)
    if module_type is None:
        raise UnsupportedObject("sharders", sharder, "it has no module_type")
    return getattr(module_type, "__name__", str(module_type))


def _configs_of(module):
    inner = getattr(module, "_embedding_bag_collection", None)  # FeatureProcessedEBC
    if inner is not None and hasattr(inner, "embedding_bag_configs"):
        return list(inner.embedding_bag_configs())
    if hasattr(module, "embedding_bag_configs"):
        return list(module.embedding_bag_configs())
    if hasattr(module, "embedding_configs"):
        return list(module.embedding_configs())
    raise UnsupportedObject("module", module, "it has neither embedding_bag_configs() nor embedding_configs()")


def _is_weighted(module):
    if _class_name(module) == "FeatureProcessedEmbeddingBagCollection":
        return True
    method = getattr(module, "is_weighted", None)
    return bool(method()) if callable(method) else False


def shardable_modules(module, sharders, exact_order=False):
    """[(path, module, sharder)] in the order torchrec's EmbeddingEnumerator visits them:
    a stack of (path, module) from the root, children pushed in named_children() order
    and popped from the end (the front with use_exact_enumerate_order); a module whose
    type a sharder names is taken whole, its children not visited."""
    by_type = {}
    for sharder in sharders:
        by_type[_module_type_name(sharder)] = sharder
    found = []
    queue = [("", module)]
    while queue:
        path, child = queue.pop(0) if exact_order else queue.pop()
        sharder = by_type.get(_class_name(child))
        if sharder is None:
            for name, grandchild in child.named_children():
                queue.append((f"{path}.{name}" if path else name, grandchild))
            continue
        if _class_name(child) in _NOT_PLANNED or _class_name(child) not in _SHARDABLE:
            raise UnsupportedObject(f"module '{path}'", child, "shardplan plans " + ", ".join(sorted(_SHARDABLE)))
        found.append((path, child, sharder))
    return found


def _tensor_bytes(tensor):
    size = getattr(tensor, "element_size", None)
    count = tensor.numel() if callable(getattr(tensor, "numel", None)) else int(tensor.numel)
    return count * (size() if callable(size) else int(size or 4))


def _module_size(module, multiplier):
    """torchrec's storage reservation's module size: parameters x multiplier + buffers."""
    params = sum(multiplier * _tensor_bytes(p) for p in module.parameters())
    buffers = sum(_tensor_bytes(b) for b in (module.buffers() if hasattr(module, "buffers") else []))
    return round(params + buffers)


_DATA_TYPE_OF_SIZE = {4: "fp32", 2: "fp16", 1: "int8"}


def _dense_part(module, shardable, multiplier):
    """The rest of the model, as torchrec's heuristical reservation counts it: {"parameters",
    "data_type"} where every other parameter has one element size and there are no other
    buffers (shardplan then computes torchrec's bytes), else torchrec's byte count itself."""
    inside = {id(p) for child in shardable for p in child.parameters()}
    inside_buffers = {id(b) for child in shardable for b in (child.buffers() if hasattr(child, "buffers") else [])}
    rest = [p for p in module.parameters() if id(p) not in inside]
    buffers = [b for b in (module.buffers() if hasattr(module, "buffers") else []) if id(b) not in inside_buffers]
    sizes = {_tensor_bytes(p) // max(1, _numel(p)) for p in rest if _numel(p)}
    if not buffers and len(sizes) <= 1 and (not sizes or next(iter(sizes)) in _DATA_TYPE_OF_SIZE):
        size = next(iter(sizes)) if sizes else 4
        return {"parameters": sum(_numel(p) for p in rest), "data_type": _DATA_TYPE_OF_SIZE[size]}
    return _module_size(module, multiplier) - sum(_module_size(child, multiplier) for child in shardable)


def _numel(tensor):
    return tensor.numel() if callable(getattr(tensor, "numel", None)) else int(tensor.numel)


def module_tables(module, sharders=None):
    """{fqn: (num_embeddings, embedding_dim)} of the tables torchrec would shard in `module`."""
    sharders = sharders if sharders is not None else _default_sharders()
    out = {}
    for path, child, _ in shardable_modules(module, sharders):
        for config in _configs_of(child):
            out[f"{path}.{config.name}"] = (int(config.num_embeddings), int(config.embedding_dim))
    return out


def _default_sharders():
    """Sharders for the module types shardplan plans, as plain objects (module_type only)."""
    from types import SimpleNamespace
    return [SimpleNamespace(module_type=type(name, (), {}), fused_params=None) for name in _SHARDABLE]


# ---------------------------------------------------------------- planner objects

_DEFAULT_SHARDING_TYPES = {"data_parallel", "table_wise", "column_wise", "row_wise", "table_row_wise",
                           "table_column_wise"}
_DEFAULT_KERNELS = {"dense", "fused", "fused_uvm", "fused_uvm_caching"}


def _proposer_names(proposer):
    items = proposer if isinstance(proposer, list) else [proposer]
    names = []
    for p in items:
        if isinstance(p, str):
            names.append(p)
            continue
        kind = _class_name(p)
        if kind == "GridSearchProposer":
            if getattr(p, "_max_proposals", 10000) != 10000:  # torchrec's MAX_PROPOSALS
                raise UnsupportedObject("proposer", p, "shardplan's grid search keeps torchrec's default "
                                        "max_proposals (10000)")
            names.append("grid_search")
        elif kind == "GreedyProposer":
            names.append("greedy" if getattr(p, "_use_depth", True) else "greedy_sum")
        elif kind == "UniformProposer":
            names.append("uniform")
        elif kind == "EmbeddingOffloadScaleupProposer":
            names.append("offload_scaleup")
        else:
            raise UnsupportedObject("proposer", p)
    return names


def _greedy_threshold(proposer):
    items = proposer if isinstance(proposer, list) else [proposer]
    for p in items:
        if _class_name(p) == "GreedyProposer" and getattr(p, "_threshold", None) is not None:
            return int(p._threshold)
    return None


def _partitioner_section(partitioner):
    if partitioner is None:
        return {}
    if isinstance(partitioner, str):
        return {"type": partitioner}
    kind = _class_name(partitioner)
    if kind == "GreedyPerfPartitioner":
        out = {"type": "greedy"}
        sort_by = getattr(partitioner, "_sort_by", None)
        if sort_by is not None:
            out["sort_by"] = _name(sort_by)
        if getattr(partitioner, "_balance_modules", False):
            out["balance_modules"] = True
        return out
    if kind == "MemoryBalancedPartitioner":
        out = {"type": "memory_balanced"}
        for ours, theirs in (("max_search_count", "_max_search_count"), ("tolerance", "_tolerance")):
            value = getattr(partitioner, theirs, None)
            if value is not None:
                out[ours] = value
        if getattr(partitioner, "_balance_modules", False):
            out["balance_modules"] = True
        return out
    raise UnsupportedObject("partitioner", partitioner)


def _reservation_section(reservation):
    if reservation is None:
        return {}
    kind = _class_name(reservation)
    policy = {"HeuristicalStorageReservation": "heuristical", "FixedPercentageStorageReservation": "fixed_percentage",
              "InferenceStorageReservation": "inference"}.get(kind)
    if policy is None:
        raise UnsupportedObject("storage_reservation", reservation)
    out = {"policy": policy}
    percentage = getattr(reservation, "_percentage", None)
    if percentage is not None:
        out["percentage"] = float(percentage)
    multiplier = getattr(reservation, "_parameter_multiplier", None)
    if multiplier is not None and policy == "heuristical":
        out["parameter_multiplier"] = float(multiplier)
    estimate = getattr(reservation, "_dense_tensor_estimate", None)
    if estimate is not None:
        out["dense_tensor_estimate"] = int(estimate)
    return out


def _logs_stats(stats):
    """True for torchrec's EmbeddingStats (the default), False for NoopEmbeddingStats."""
    if stats is None:
        return True
    items = stats if isinstance(stats, list) else [stats]
    logs = False
    for s in items:
        kind = _class_name(s)
        if kind == "EmbeddingStats":
            logs = True
        elif kind != "NoopEmbeddingStats":
            raise UnsupportedObject("stats", s)
    return logs


# ---------------------------------------------------------------- the ShardingPlan


class _Record:
    _fields = ()

    def __init__(self, *args, **kwargs):
        for field, value in zip(self._fields, args):
            setattr(self, field, value)
        for field in self._fields[len(args):]:
            setattr(self, field, kwargs.pop(field, None))
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unknown fields {sorted(kwargs)}")

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields) + ")"


class ShardMetadata(_Record):
    """Stand-in for torch's ShardMetadata (torchrec not importable)."""
    _fields = ("shard_offsets", "shard_sizes", "placement")


class EnumerableShardingSpec(_Record):
    _fields = ("shards",)


class ParameterSharding(_Record):
    _fields = ("sharding_type", "compute_kernel", "ranks", "sharding_spec", "cache_params", "enforce_hbm",
               "stochastic_rounding", "bounds_check_mode", "output_dtype", "key_value_params")


class EmbeddingModuleShardingPlan(dict):
    pass


class ShardingPlan(_Record):
    _fields = ("plan",)

    def get_plan_for_module(self, module_path):
        return self.plan.get(module_path)


def _torchrec_classes():
    try:
        from torchrec.distributed.types import (EmbeddingModuleShardingPlan as TEmbeddingModuleShardingPlan,
                                                EnumerableShardingSpec as TEnumerableShardingSpec,
                                                ParameterSharding as TParameterSharding,
                                                ShardingPlan as TShardingPlan, ShardMetadata as TShardMetadata)
    except ImportError:
        return ShardingPlan, EmbeddingModuleShardingPlan, ParameterSharding, EnumerableShardingSpec, ShardMetadata
    return TShardingPlan, TEmbeddingModuleShardingPlan, TParameterSharding, TEnumerableShardingSpec, TShardMetadata


def sharding_plan_from_dict(document, constraints=None, real=None):
    """The ShardingPlan of a plan file (dict), as torchrec's to_sharding_plan builds it.
    cache_params, enforce_hbm, stochastic_rounding, bounds_check_mode, output_dtype and
    key_value_params are those of `constraints` (the objects, as torchrec passes them
    through) when given, else the plan file's values. real: True = torchrec's classes
    (ImportError if absent), False = stand-ins, None = torchrec's when importable."""
    if real is False:
        classes = (ShardingPlan, EmbeddingModuleShardingPlan, ParameterSharding, EnumerableShardingSpec,
                   ShardMetadata)
    else:
        classes = _torchrec_classes()
        if real and classes[0] is ShardingPlan:
            import torchrec.distributed.types  # noqa: F401  (raises the ImportError)
    plan_cls, module_plan_cls, sharding_cls, spec_cls, metadata_cls = classes
    real_classes = plan_cls is not ShardingPlan
    plan = {}
    for module_path, tables in document["plan"].items():
        module_plan = module_plan_cls()
        for table_name, table in tables.items():
            spec = None
            if table["sharding_type"] != "data_parallel":
                spec = spec_cls([metadata_cls(shard_offsets=list(s["offsets"]), shard_sizes=list(s["sizes"]),
                                              placement=s["placement"]) for s in table["shards"]])
            fields = _pass_through(table, (constraints or {}).get(table_name), real_classes)
            module_plan[table_name] = sharding_cls(
                sharding_spec=spec, sharding_type=table["sharding_type"], compute_kernel=table["compute_kernel"],
                ranks=list(table["ranks"]), **fields)
        plan[module_path] = module_plan
    return plan_cls(plan)


def _enum_value(enum_cls, name):
    if name is None:
        return None
    for member in enum_cls:
        if member.value == name or member.name == str(name).upper():
            return member
    raise ValueError(f"unknown {enum_cls.__name__} value {name!r}")


def _pass_through(table, constraint, real_classes):
    """The ParameterSharding fields torchrec copies from the table's ParameterConstraints."""
    if constraint is not None:
        return {field: getattr(constraint, field, None) for field in
                ("cache_params", "enforce_hbm", "stochastic_rounding", "bounds_check_mode", "output_dtype",
                 "key_value_params")}
    fields = {"cache_params": table.get("cache_params"), "enforce_hbm": table.get("enforce_hbm"),
              "stochastic_rounding": table.get("stochastic_rounding"),
              "bounds_check_mode": table.get("bounds_check_mode"), "output_dtype": table.get("output_dtype"),
              "key_value_params": None}
    if real_classes:
        from torchrec.distributed.types import BoundsCheckMode, CacheAlgorithm, CacheParams
        from torchrec.modules.embedding_configs import DataType
        raw = fields["cache_params"]
        if raw is not None:
            fields["cache_params"] = CacheParams(
                algorithm=_enum_value(CacheAlgorithm, raw.get("algorithm")), load_factor=raw.get("load_factor"),
                reserved_memory=raw.get("reserved_memory"), precision=_enum_value(DataType, raw.get("precision")),
                prefetch_pipeline=raw.get("prefetch_pipeline"))
        fields["bounds_check_mode"] = _enum_value(BoundsCheckMode, fields["bounds_check_mode"])
        fields["output_dtype"] = _enum_value(DataType, fields["output_dtype"])
    return fields


# ---------------------------------------------------------------- the planner


class ShardplanPlanner:
    """torchrec's EmbeddingShardingPlanner, planned by shardplan. Takes the same
    arguments; each torchrec object is mapped to shardplan's option of the same meaning,
    and one that cannot be mapped raises UnsupportedObject (an InputError) naming it.
    partitioner may also be a shardplan name: "greedy" (default, torchrec's), "memory_balanced"
    or "optimizing". threads: planning threads (0 = one per core; the plan is the same)."""

    def __init__(self, topology=None, batch_size=None, enumerator=None, storage_reservation=None, proposer=None,
                 partitioner=None, performance_model=None, stats=None, constraints=None, debug=True,
                 callbacks=None, timeout_seconds=None, plan_loader=None,
                 heuristical_storage_reservation_percentage=0.15, threads=0):
        if topology is None:
            topology = self._topology_from_process_group()
        self._topology = topology
        self._batch_size = int(batch_size) if batch_size else 512  # torchrec's BATCH_SIZE
        self._constraints = dict(constraints or {})
        self._exact_order = False
        self._is_inference = False
        if enumerator is not None:
            if _class_name(enumerator) != "EmbeddingEnumerator":
                raise UnsupportedObject("enumerator", enumerator)
            if getattr(enumerator, "_estimators", None) and any(
                    _class_name(e) not in ("EmbeddingPerfEstimator", "EmbeddingStorageEstimator")
                    for e in enumerator._estimators):
                raise UnsupportedObject("enumerator", enumerator, "it has estimators other than torchrec's")
            self._exact_order = bool(getattr(enumerator, "_use_exact_enumerate_order", False))
            # estimators made with is_inference=True: torchrec's inference estimates
            if any(getattr(e, "_is_inference", False) for e in getattr(enumerator, "_estimators", None) or []):
                self._is_inference = True
        if performance_model is not None and _class_name(performance_model) != "NoopPerfModel":
            raise UnsupportedObject("performance_model", performance_model)
        if callbacks:
            raise UnsupportedObject("callbacks", callbacks[0], "shardplan cannot run Python on its sharding options")
        if plan_loader is not None:
            raise UnsupportedObject("plan_loader", plan_loader, "check a stored plan with shardplan.validate_plan")
        self._planner = {}
        if proposer:
            self._planner["proposers"] = _proposer_names(proposer)
            threshold = _greedy_threshold(proposer)
            if threshold is not None:
                self._planner["greedy_threshold"] = threshold
        section = _partitioner_section(partitioner)
        if section:
            self._planner["partitioner"] = section
        reservation = _reservation_section(storage_reservation)
        if not reservation and heuristical_storage_reservation_percentage != 0.15:
            reservation = {"policy": "heuristical", "percentage": float(heuristical_storage_reservation_percentage)}
        if reservation:
            self._planner["storage_reservation"] = reservation
        if self._is_inference:
            self._planner["is_inference"] = True
        self._multiplier = float(reservation.get("parameter_multiplier", 6.0))
        self._logs_stats = _logs_stats(stats)
        self._debug = debug
        self._timeout_seconds = timeout_seconds
        self._threads = threads
        self.last_plan_file = None  # the plan file (dict) of the last plan()

    @staticmethod
    def _topology_from_process_group():
        try:
            import torch.distributed as dist
        except ImportError:
            raise TypeError("topology is required where torch is not installed") from None
        from torchrec.distributed.planner.types import Topology
        from torchrec.distributed.comm import get_local_size
        from torchrec.distributed.utils import get_device_type
        return Topology(local_world_size=get_local_size(), world_size=dist.get_world_size(),
                        compute_device=get_device_type())

    # -- the shardplan case of a module

    def case(self, module, sharders):
        """The shardplan config (a dict) plan() plans for `module` and `sharders`."""
        found = shardable_modules(module, sharders, self._exact_order)
        modules, constraints = [], {n: _constraint(c) for n, c in self._constraints.items()}
        for path, child, sharder in found:
            kind = _SHARDABLE[_class_name(child)]
            configs = _configs_of(child)
            modules.append({"path": path, "kind": kind, "tables": [_table(c) for c in configs]})
            weighted = _is_weighted(child)
            for config in configs:
                self._sharder_into_constraint(sharder, constraints, config.name, weighted)
        model = {"batch_size": self._batch_size, "modules": modules}
        planner = dict(self._planner)
        dense = _dense_part(module, [child for _, child, _ in found], self._multiplier)
        if isinstance(dense, dict):
            if dense["parameters"]:
                model["dense"] = dense
        elif "dense_tensor_estimate" not in planner.get("storage_reservation", {}):
            # Mixed element sizes or buffers: the bytes torchrec's reservation would count.
            planner["storage_reservation"] = dict(planner.get("storage_reservation", {"policy": "heuristical"}),
                                                  dense_tensor_estimate=dense)
        if constraints:
            model["constraints"] = {k: v for k, v in constraints.items() if v}
        return {"model": model, "topology": topology_config(self._topology), "planner": planner}

    def _sharder_into_constraint(self, sharder, constraints, table, weighted):
        entry = constraints.setdefault(table, {})
        if weighted and "is_weighted" not in entry:
            entry["is_weighted"] = True
        fused = getattr(sharder, "fused_params", None) or {}
        cache = entry.get("cache_params", {})
        if fused.get("cache_load_factor") is not None and "load_factor" not in cache:
            cache = dict(cache, load_factor=float(fused["cache_load_factor"]))
        if fused.get("prefetch_pipeline") is not None and "prefetch_pipeline" not in cache:
            cache = dict(cache, prefetch_pipeline=bool(fused["prefetch_pipeline"]))
        if cache:
            entry["cache_params"] = cache
        device = _name(self._topology.compute_device)
        types_of = getattr(sharder, "sharding_types", None)
        kernels_of = getattr(sharder, "compute_kernels", None)
        if callable(types_of):
            types = [_name(t) for t in types_of(device)]
            if not _DEFAULT_SHARDING_TYPES <= set(types):
                allowed = [t for t in types if t in entry.get("sharding_types", types)]
                entry["sharding_types"] = allowed
            if callable(kernels_of):
                kernels = []
                for t in entry.get("sharding_types", types):
                    kernels += [_name(k) for k in kernels_of(t, device) if _name(k) not in kernels]
                if not _DEFAULT_KERNELS <= set(kernels):
                    entry["compute_kernels"] = [k for k in kernels if k in entry.get("compute_kernels", kernels)]

    # -- torchrec's methods

    def plan(self, module, sharders):
        """A ShardingPlan for `module`, as EmbeddingShardingPlanner.plan returns it."""
        from . import plan_with_stats
        case = self.case(module, sharders)
        if not case["model"]["modules"]:
            return _torchrec_classes()[0]({})  # no shardable parameters, as torchrec
        options = {}
        if self._timeout_seconds is not None:
            options["time_budget"] = float(self._timeout_seconds)
        document, stats_text, summary = plan_with_stats(case, threads=self._threads, stats="both",
                                                         _destination="the returned ShardingPlan", **options)
        if self._logs_stats:
            for line in stats_text.splitlines():
                logger.info(line)
        for line in summary.splitlines():
            logger.info(line)
        self.last_plan_file = document
        return sharding_plan_from_dict(document, self._constraints)

    def collective_plan(self, module, sharders=None, pg=None):
        """plan() on rank 0 of `pg`, broadcast to every rank (torch.distributed.broadcast_object_list),
        as EmbeddingShardingPlanner.collective_plan does. An error on rank 0 is raised on every rank."""
        dist = self._distributed()
        if pg is None:
            if not dist.is_initialized():
                raise RuntimeError("the default process group is not initialized: call "
                                   "torch.distributed.init_process_group() first, or use plan()")
            pg = dist.GroupMember.WORLD
        if sharders is None:
            from torchrec.distributed.sharding_plan import get_default_sharders
            sharders = get_default_sharders()
        box = [None]
        if dist.get_rank(pg) == 0:
            try:
                box[0] = self.plan(module, sharders)
            except Exception as error:  # sent to the other ranks, raised everywhere
                box[0] = error
        dist.broadcast_object_list(box, src=0, group=pg)
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    @staticmethod
    def _distributed():
        import torch.distributed as dist
        return dist
