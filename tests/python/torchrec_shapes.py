"""Objects shaped like torchrec's (class names and attribute names only), built from a
shardplan case, for testing shardplan.torchrec.ShardplanPlanner where torchrec is not
installed: the model as nested modules whose named_children() torchrec's enumerator
walks, the tables' configs, ParameterConstraints, Topology, planner objects and sharders."""
from types import SimpleNamespace as Obj

GIB = 1024 ** 3
_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


def size_bytes(value):
    """A case's size ("16 GiB" or bytes) in bytes, as torchrec holds it."""
    if isinstance(value, str):
        number, unit = value.split()
        return int(float(number) * _UNITS[unit])
    return value


def bandwidth(value):
    """A case's bandwidth ("897 GB/s" or bytes/ms) in bytes/ms, as torchrec holds it."""
    if isinstance(value, str):
        number, unit = value.split()
        assert unit == "GB/s", value
        return float(number) * 1024 ** 3 / 1000
    return value


class Tensor:
    """numel() and element_size(), all the planner reads of a parameter."""

    def __init__(self, numel, element_size):
        self._numel, self._size = numel, element_size

    def numel(self):
        return self._numel

    def element_size(self):
        return self._size


class Module:
    def __init__(self, children=(), params=(), buffers=()):
        self._children = list(children)
        self._params = list(params)
        self._buffers = list(buffers)

    def named_children(self):
        return iter(self._children)

    def parameters(self):
        seen = set()
        for p in self._own_and_children("_params", "parameters"):
            if id(p) not in seen:
                seen.add(id(p))
                yield p

    def buffers(self):
        return list(self._own_and_children("_buffers", "buffers"))

    def _own_and_children(self, own, method):
        yield from getattr(self, own)
        for _, child in self._children:
            yield from getattr(child, method)()


class EmbeddingBagCollection(Module):
    def __init__(self, configs, weighted=False):
        super().__init__(params=[Tensor(c.num_embeddings * c.embedding_dim, _element_size(c.data_type))
                                 for c in configs])
        self._configs, self._weighted = configs, weighted

    def embedding_bag_configs(self):
        return self._configs

    def is_weighted(self):
        return self._weighted


class EmbeddingCollection(Module):
    def __init__(self, configs):
        super().__init__(params=[Tensor(c.num_embeddings * c.embedding_dim, _element_size(c.data_type))
                                 for c in configs])
        self._configs = configs

    def embedding_configs(self):
        return self._configs


class Linear(Module):
    pass


def _element_size(data_type):
    return 4 if data_type == "FP32" else 2  # torchrec keeps weights in fp32 or half precision


def named(class_name, **attributes):
    """An object of a class called `class_name` (as torchrec's planner objects are matched)."""
    return type(class_name, (), {})() if not attributes else _with(type(class_name, (), {})(), attributes)


def _with(obj, attributes):
    for k, v in attributes.items():
        setattr(obj, k, v)
    return obj


def table_config(t):
    return Obj(name=t["name"], num_embeddings=t["num_embeddings"], embedding_dim=t["embedding_dim"],
               data_type=t.get("data_type", "fp32").upper(), feature_names=t.get("feature_names", [t["name"]]))


def model_of(case):
    """The model as a module tree: module paths become nested children, ordered so that
    torchrec's enumerator (a stack, children popped from the end) meets them in the
    case's order; the dense part is a Linear of the case's dense parameters."""
    model = case["model"]
    tree = {}
    for m in model["modules"]:
        configs = [table_config(t) for t in m["tables"]]
        if m["kind"] == "embedding_bag":
            leaf = EmbeddingBagCollection(configs)  # is_weighted comes with the constraints
        else:
            leaf = EmbeddingCollection(configs)
        node = tree
        parts = m["path"].split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = leaf

    def build(node):
        children = [(name, build(child) if isinstance(child, dict) else child) for name, child in node.items()]
        return Module(children=list(reversed(children)))  # popped from the end: first visited first

    root = build(tree)
    dense = model.get("dense", {})
    if dense.get("parameters"):
        size = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1}[dense.get("data_type", "fp32")]
        root._children.insert(0, ("dense", Linear(params=[Tensor(dense["parameters"], size)])))
    return root


def constraints_of(case):
    out = {}
    for name, c in case["model"].get("constraints", {}).items():
        fields = {f: c.get(f) for f in ("sharding_types", "compute_kernels", "min_partition", "num_poolings",
                                        "batch_sizes", "enforce_hbm", "stochastic_rounding", "bounds_check_mode",
                                        "output_dtype", "device_group")}
        fields["pooling_factors"] = c.get("pooling_factors", [1.0])
        fields["is_weighted"] = c.get("is_weighted", False)
        cache = c.get("cache_params")
        fields["cache_params"] = None if cache is None else Obj(
            **{f: cache.get(f) for f in ("algorithm", "load_factor", "reserved_memory", "precision",
                                         "prefetch_pipeline")})
        fields["key_value_params"] = None
        out[name] = named("ParameterConstraints", **fields)
    return out


def topology_of(case):
    t = case["topology"]
    device = t.get("compute_device", "cuda")
    world = t["world_size"]
    hbm = t.get("custom", {}).get("hbm_cap") or [t.get("hbm_cap", 32 * GIB if device != "cpu" else 0)] * world
    ddr = t.get("custom", {}).get("ddr_cap") or [t.get("ddr_cap", 128 * GIB)] * world
    hbm, ddr = [size_bytes(v) for v in hbm], [size_bytes(v) for v in ddr]
    fields = {k: (bandwidth(v) if k.endswith("_bw") else v) for k, v in t.items()
              if k not in ("custom", "hbm_cap", "ddr_cap")}
    fields.setdefault("local_world_size", world)
    fields["compute_device"] = device
    fields["devices"] = [Obj(rank=r, storage=Obj(hbm=hbm[r], ddr=ddr[r])) for r in range(world)]
    return named("Topology", **fields)


def planner_objects(case):
    """EmbeddingShardingPlanner's keyword arguments for the case's planner section."""
    p = case.get("planner", {})
    kwargs = {}
    proposers = {"grid_search": lambda: named("GridSearchProposer"),
                 "greedy": lambda: named("GreedyProposer", _use_depth=True, _threshold=p.get("greedy_threshold")),
                 "greedy_sum": lambda: named("GreedyProposer", _use_depth=False, _threshold=p.get("greedy_threshold")),
                 "uniform": lambda: named("UniformProposer"),
                 "offload_scaleup": lambda: named("EmbeddingOffloadScaleupProposer")}
    if "proposers" in p:
        kwargs["proposer"] = [proposers[name]() for name in p["proposers"]]
    part = p.get("partitioner")
    if part:
        if part.get("type", "greedy") == "greedy":
            kwargs["partitioner"] = named("GreedyPerfPartitioner", _sort_by=part.get("sort_by", "storage"),
                                          _balance_modules=part.get("balance_modules", False))
        else:
            kwargs["partitioner"] = named("MemoryBalancedPartitioner",
                                          _max_search_count=part.get("max_search_count", 10),
                                          _tolerance=part.get("tolerance", 0.02),
                                          _balance_modules=part.get("balance_modules", False))
    res = p.get("storage_reservation")
    if res:
        policy = res.get("policy", "heuristical")
        cls = {"heuristical": "HeuristicalStorageReservation", "fixed_percentage": "FixedPercentageStorageReservation",
               "inference": "InferenceStorageReservation"}[policy]
        fields = {"_percentage": res.get("percentage", 0.15)}
        if policy == "heuristical":
            fields["_parameter_multiplier"] = res.get("parameter_multiplier", 6.0)
        if policy != "fixed_percentage" and res.get("dense_tensor_estimate") is not None:
            fields["_dense_tensor_estimate"] = size_bytes(res["dense_tensor_estimate"])
        kwargs["storage_reservation"] = named(cls, **fields)
    if p.get("is_inference"):
        kwargs["enumerator"] = named("EmbeddingEnumerator", _estimators=[
            named("EmbeddingPerfEstimator", _is_inference=True), named("EmbeddingStorageEstimator", _is_inference=True)])
    return kwargs


def sharders(fused_params=None):
    return [Obj(module_type=EmbeddingBagCollection, fused_params=fused_params),
            Obj(module_type=EmbeddingCollection, fused_params=fused_params)]
