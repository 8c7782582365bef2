"""Meshes, shardings, sharding in types, visualize_array_sharding and shard_map, replayed
against real JAX 0.10.2's outputs recorded with 8 simulated CPU devices
(tests/data/sharding_cases.py says how they were recorded)."""
import sys

import pytest

import edujax
from recorded import check, load, params

CASES = load("sharding_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}

# Errors whose first line names JAX internals (the function JAX wraps the body in,
# '_rem_singleton', where edujax names the user's function): compared by type only.
TYPE_ONLY = {"shard_map_all_gather", "shard_map_all_gather_untiled",
             "shard_map_out_not_replicated_error", "eager_shard_map_out_not_replicated"}


@pytest.fixture(autouse=True)
def eight_devices(monkeypatch):
    """JAX's docs set XLA_FLAGS=--xla_force_host_platform_device_count=8; the tests ask for
    the same 8 simulated devices through the config option, whatever the shell says. The
    programs import ``from jax.sharding import ...``, as a learner's code does after
    ``import edujax as jax``: for the test, that ``jax`` is edujax."""
    before = edujax.config.read("edujax_num_cpu_devices")
    edujax.config.update("edujax_num_cpu_devices", 8)
    monkeypatch.setitem(sys.modules, "jax", edujax)
    monkeypatch.setitem(sys.modules, "jax.sharding", edujax.sharding)
    yield
    edujax.config.update("edujax_num_cpu_devices", before)


@pytest.mark.parametrize("case", params(CASES, KNOWN_DIFFERENCES, TYPE_ONLY))
def test_matches_recorded_jax(case):
    check(case, type_only=case["name"] in TYPE_ONLY)
