"""A model, its constraints and its topology shaped like torchrec's objects (same
attribute names, enums with .value/.name), for testing scripts/torchrec_to_config.py
where torchrec is not installed."""
import enum
from types import SimpleNamespace as Obj


class DataType(enum.Enum):  # torchrec's DataType: string values
    FP32 = "FP32"
    FP16 = "FP16"


class ShardingType(enum.Enum):
    TABLE_WISE = "table_wise"
    ROW_WISE = "row_wise"


class CacheAlgorithm(enum.Enum):  # int-valued, read by name
    LRU = 0
    LFU = 1


class EmbeddingBagCollection:
    def __init__(self, configs):
        self._configs = configs

    def embedding_bag_configs(self):
        return self._configs


def model():
    ebc = EmbeddingBagCollection([
        Obj(name="t_user", num_embeddings=1000000, embedding_dim=64, data_type=DataType.FP32,
            feature_names=["user_id"]),
        Obj(name="t_item", num_embeddings=500000, embedding_dim=32, data_type=DataType.FP16,
            feature_names=["item_id", "item_seen"]),
    ])
    sequence_tables = [Obj(name="t_hist", num_embeddings=20000, embedding_dim=16, data_type=DataType.FP32,
                           feature_names=[])]
    constraints = {
        "t_user": Obj(sharding_types=[ShardingType.ROW_WISE, ShardingType.TABLE_WISE],
                      compute_kernels=["fused_uvm_caching"], pooling_factors=[4], min_partition=None,
                      cache_params=Obj(algorithm=CacheAlgorithm.LFU, load_factor=0.25, reserved_memory=None,
                                       precision=None, prefetch_pipeline=None)),
    }
    device = lambda hbm: Obj(storage=Obj(hbm=hbm, ddr=64 * 1024 ** 3))
    topology = Obj(world_size=2, local_world_size=2, compute_device="cuda",
                   devices=[device(16 * 1024 ** 3), device(8 * 1024 ** 3)],
                   hbm_mem_bw=897 * 1024 ** 3 / 1000, intra_host_bw=600 * 1024 ** 3 / 1000)
    # An EC given as a list of configs: the kind comes from the list's module kind.
    from torchrec_to_config import case_config, model_config
    case = case_config({"sparse.ebc": ebc}, topology, constraints, batch_size=256, name="stand-ins")
    case["model"]["modules"] += model_config({"sparse.ec": sequence_tables}, kind="embedding")["modules"]
    return case
