"""course/z2jh/config.yaml, the course on Kubernetes, is what the Zero to JupyterHub chart
accepts: merged over the chart's defaults and validated against its published values schema,
as `helm install` does (tests/data/z2jh/, copied from the chart; its README names the commit).
"""
from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
CHART = REPO / "tests/data/z2jh"
CONFIG = REPO / "course/z2jh/config.yaml"


def merged(defaults: dict, values: dict) -> dict:
    """Helm's merge of a values file over the chart's defaults: maps merge key by key,
    anything else (lists too) replaces."""
    out = copy.deepcopy(defaults)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def validate(values: dict) -> None:
    schema = yaml.safe_load((CHART / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    jsonschema.validate(merged(defaults, values), schema)


def course_config() -> dict:
    return yaml.safe_load(CONFIG.read_text())


def test_the_course_config_passes_the_charts_schema():
    validate(course_config())


@pytest.mark.parametrize("path, value", [
    (("singleuser", "memroy"), {"limit": "1G"}),                 # a misspelled key
    (("cull", "timeout"), "an hour"),                            # a number expected
    (("scheduling", "userPlaceholder", "replicas"), "thirty"),
])
def test_the_schema_catches_a_typo(path, value):
    """The check above is a real one: the same config with one mistake fails it."""
    config = course_config()
    parent = config
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        validate(config)

