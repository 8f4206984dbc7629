"""The exceptions of the shardplan package (raised by its C++ module too)."""


class ShardplanError(Exception):
    """Base class of shardplan's errors; `exit_code` is the CLI's exit code for the same case."""

    exit_code = 3

    def __init__(self, message):
        super().__init__(message.rstrip("\n"))
        self.message = message.rstrip("\n")


class InputError(ShardplanError, ValueError):
    """Bad input or usage (the CLI's exit code 2). `str(error)` is the CLI's message:
    every problem as `file:line:col: key.path: what was expected, what was found`;
    `diagnostics` holds them as dicts (file, line, col, key_path, message)."""

    exit_code = 2

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


class PlannerError(ShardplanError):
    """No feasible plan (the CLI's exit code 1). `kind` is torchrec's PlannerErrorType
    name (INSUFFICIENT_STORAGE, STRICT_CONSTRAINTS, PARTITION, OTHER) or NO_SHARDING_OPTION;
    `stage` where it failed; `fixes` the suggested fixes, one string each; `explanation`
    the explain() result where explain() raised it."""

    exit_code = 1

    def __init__(self, message, kind="OTHER", stage="", fixes=(), explanation=None):
        super().__init__(message)
        self.kind = kind
        self.stage = stage
        self.fixes = list(fixes)
        self.explanation = explanation
