"""``jax.tree``: short names for the tree_util functions (``jax.tree.map`` & co)."""
from edujax.tree_util import (tree_all as all, tree_flatten as flatten,  # noqa: F401
                              tree_flatten_with_path as flatten_with_path,
                              tree_leaves as leaves, tree_leaves_with_path as leaves_with_path,
                              tree_map as map, tree_map_with_path as map_with_path,
                              tree_reduce as reduce, tree_structure as structure,
                              tree_transpose as transpose, tree_unflatten as unflatten)
# The rest of ``jax.tree`` (toplevel slice of issue 17).
from edujax.tree_util import (static, tree_broadcast as broadcast,  # noqa: F401
                              tree_reduce_associative as reduce_associative)
