"""The same conversion from real torchrec objects; exits 3 when torchrec (or torch)
cannot be imported, so the test says it was skipped."""
import sys

try:
    import torch  # noqa: F401
    from torchrec.distributed.planner.types import ParameterConstraints, Topology
    from torchrec.modules.embedding_configs import EmbeddingBagConfig
    from torchrec.modules.embedding_modules import EmbeddingBagCollection
except ImportError as e:
    print(f"torchrec_real: {e}", file=sys.stderr)
    sys.exit(3)


def model():
    ebc = EmbeddingBagCollection(tables=[
        EmbeddingBagConfig(name="t_user", num_embeddings=1000000, embedding_dim=64, feature_names=["user_id"]),
        EmbeddingBagConfig(name="t_item", num_embeddings=500000, embedding_dim=32, feature_names=["item_id"]),
    ], device=torch.device("meta"))
    topology = Topology(world_size=2, compute_device="cuda", hbm_cap=16 * 1024 ** 3)
    constraints = {"t_user": ParameterConstraints(sharding_types=["row_wise"], pooling_factors=[4.0])}
    return {"sparse.ebc": ebc}, topology, constraints
