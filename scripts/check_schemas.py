#!/usr/bin/env python3
"""Validates JSON documents against shardplan's schemas with the standard
`jsonschema` package (Debian: python3-jsonschema), as an editor or CI would.

Usage: check_schemas.py SCHEMA=DOCUMENT...   (YAML documents need PyYAML)
Prints "DOCUMENT: ok" or every error; exit 0 when all are valid, 1 otherwise,
3 when jsonschema cannot be imported.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("check_schemas: the jsonschema package is not installed "
          "(Debian: apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(3)


def load(path):
    with open(path, encoding="utf-8") as f:
        if path.endswith((".yaml", ".yml")):
            import yaml
            return yaml.safe_load(f)
        return json.load(f)


def main(pairs):
    failed = False
    for pair in pairs:
        schema_path, document_path = pair.split("=", 1)
        schema = load(schema_path)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        # $ref resolution goes through the schema's $id, which is where a relative
        # $id used to fail (RefResolutionError): validate exactly as users would.
        errors = sorted(validator_class(schema).iter_errors(load(document_path)),
                        key=lambda e: list(e.absolute_path))
        for e in errors:
            location = "/".join(str(p) for p in e.absolute_path)
            print(f"{document_path}: {location}: {e.message}")
        if errors:
            failed = True
        else:
            print(f"{document_path}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
