#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_json.py SCHEMA FILE: FILE is one JSON document, every object's keys
are unique, and it satisfies SCHEMA (the JSON Schema keywords that
doc/report.schema.json uses: type, enum, required, properties,
additionalProperties, items, minimum, maximum, oneOf, $ref to #/$defs).
Exit 0, or 1 with the first problem and where."""
import json
import sys


def no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key {k!r}")
        seen[k] = v
    return seen


TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool,
    "integer": int, "number": (int, float), "null": type(None),
}


def check(root, schema, value, where):
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return check(root, root["$defs"][ref[8:]], value, where)
    if "oneOf" in schema:
        ok = [s for s in schema["oneOf"] if not check(root, s, value, where)]
        if len(ok) != 1:
            return f"{where}: matches {len(ok)} of the oneOf schemas, not 1"
    t = schema.get("type")
    if isinstance(t, list):
        # one of several types: the first that fits decides
        fits = [x for x in t if isinstance(value, TYPES[x]) and
                not (isinstance(value, bool) and x in ("integer", "number"))]
        if not fits:
            return f"{where}: {value!r:.80} is none of {t}"
        t = fits[0]
    if t:
        py = TYPES[t]
        if isinstance(value, bool) and t in ("integer", "number"):
            return f"{where}: {value!r} is not {t}"
        if not isinstance(value, py):
            return f"{where}: {value!r:.80} is not {t}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: {value!r} not in {schema['enum']}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where}: {value} < {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{where}: {value} > {schema['maximum']}"
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                return f"{where}: no key {k!r}"
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                why = check(root, props[k], v, f"{where}.{k}")
                if why:
                    return why
            elif schema.get("additionalProperties") is False:
                return f"{where}: unexpected key {k!r}"
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            why = check(root, schema["items"], v, f"{where}[{i}]")
            if why:
                return why
    return None


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    try:
        with open(sys.argv[2], encoding="utf-8") as f:
            doc = json.loads(f.read(), object_pairs_hook=no_duplicates)
    except (ValueError, UnicodeDecodeError) as e:
        print(f"{sys.argv[2]}: not JSON: {e}")
        return 1
    why = check(schema, schema, doc, "$")
    if why:
        print(f"{sys.argv[2]}: {why}")
        return 1
    return 0


sys.exit(main())
