# SPDX-License-Identifier: MIT
"""Validate a shrinklab JSON document against data/shrinklab.schema.json with
python3-jsonschema (Debian's, installed by scripts/install-deps.sh)."""
import json
import os

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                      "shrinklab.schema.json")


def validate(doc):
    """Raise jsonschema.ValidationError (with the path) if @doc does not fit."""
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
