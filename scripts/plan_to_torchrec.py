#!/usr/bin/env python3
"""Turn a shardplan plan file (schema shardplan.plan/v1) into a torchrec ShardingPlan.
A thin wrapper over the shardplan package (shardplan.torchrec.sharding_plan_from_dict).

Usage as a library:
    from plan_to_torchrec import load_sharding_plan
    plan = load_sharding_plan("plan.json")
    model = DistributedModelParallel(module, plan=plan, ...)

Usage from the shell (prints the plan torchrec would use):
    python3 scripts/plan_to_torchrec.py plan.json

Needs torchrec (imported when the plan is built). Debian does not package torchrec;
in a virtual environment: pip install torch torchrec (https://pytorch.org/torchrec/).
"""

import json
import os
import sys

try:
    import shardplan.torchrec  # noqa: F401  (installed beside the binary)
except ImportError:  # run from a checkout: the package's sources
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from shardplan.torchrec import sharding_plan_from_dict  # noqa: E402


def load_sharding_plan(path):
    """Reads a plan file and returns a torchrec ShardingPlan."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "shardplan.plan/v1":
        raise ValueError(f"{path}: not a shardplan.plan/v1 file (schema={doc.get('schema')!r})")
    return sharding_plan_from_dict(doc, real=True)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    try:
        print(load_sharding_plan(argv[1]))
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith(("torch", "fbgemm")):
            raise
        print(f"plan_to_torchrec: {e.name} is not installed; torchrec is not packaged by Debian,\n"
              "in a virtual environment run:  pip install torch torchrec  "
              "(https://pytorch.org/torchrec/)", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
