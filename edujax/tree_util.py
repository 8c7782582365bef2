"""Pytrees: nested Python containers that JAX functions accept and return.

What is a pytree?
=================

JAX transformations work on arrays, but real programs pass around *structures* of arrays:
a dict of parameters, a tuple ``(params, optimizer_state)``, a list of layers. A **pytree**
is any such nesting of containers. Every value in the nesting is either

* a **node**: a container that JAX knows how to open up (tuple, list, dict, None,
  namedtuple, OrderedDict, defaultdict, or a type you registered), or
* a **leaf**: anything else (an array, a number, a string, an object JAX does not know).

Flattening a pytree splits it in two::

    {'b': [1, 2], 'a': (3, None)}
            |
            v  tree_flatten
    leaves  = [3, 1, 2]
    treedef = PyTreeDef({'a': (*, None), 'b': [*, *]})

The *leaves* are the values, in a fixed order. The *treedef* is the shape of the containers,
with a ``*`` where each leaf was. ``tree_unflatten(treedef, new_leaves)`` puts new values
back into the same shape. That pair of operations is how ``jit``, ``grad`` and ``vmap``
handle arbitrary inputs: flatten the arguments to a flat list of arrays, work on the flat
list, and unflatten the results. The treedef is also part of ``jit``'s cache key, which is
why treedefs are hashable and compare by structure.

Two rules that surprise people:

* **Dict keys are sorted.** ``{'z': 1, 'a': 2}`` and ``{'a': 2, 'z': 1}`` are equal dicts,
  so they must flatten to the same leaves in the same order, or ``jit`` would treat equal
  inputs differently. Sorting the keys makes the order depend only on the keys, not on the
  order they were inserted. Unflattening builds the dict in sorted-key order, too.
  (OrderedDict keeps its own order, because for an OrderedDict order is part of equality.)
* **None is an empty node, not a leaf.** ``None`` usually means "nothing here" (an optional
  bias, a missing gradient), so it holds no leaves: ``tree_leaves([1, None]) == [1]``.
  The treedef still remembers the None, so unflattening gives it back.

How this module is built
========================

Real JAX implements pytrees in C++ (``jaxlib/pytree.cc``); this is the same design in
plain Python:

* ``_registry`` maps a type to a ``_Registration`` saying how to open that type up. Lookup
  is by *exact* type, so a subclass of ``list`` is a leaf unless registered itself.
  Namedtuples are recognised as a fallback: a tuple subclass with a ``_fields`` attribute.
* A ``PyTreeDef`` is a small immutable tree of nodes. Each node stores its kind (leaf,
  tuple, dict, ...), the node's static data (dict keys, the namedtuple class, a custom
  type's aux data) and its children. All leaves share one object, ``_LEAF_DEF``.
* ``_flatten`` walks a value recursively, appending leaves to a list and returning the
  treedef; ``_unflatten`` walks a treedef, taking leaves from an iterator.
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import textwrap
import types
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
Leaf = Any
PyTree = Any

# ---------------------------------------------------------------------------------- node kinds

# Every node of a treedef has one of these kinds. Built-in containers get their own kind
# so that flattening them needs no function call; everything registered by users is
# _CUSTOM (arbitrary flatten/unflatten functions) or _DATACLASS (named fields).
_LEAF = "leaf"
_NONE = "None"
_TUPLE = "tuple"
_LIST = "list"
_DICT = "dict"
_NAMEDTUPLE = "namedtuple"
_CUSTOM = "custom"
_DATACLASS = "dataclass"
_KINDS = {kind: kind for kind in
          (_LEAF, _NONE, _TUPLE, _LIST, _DICT, _NAMEDTUPLE, _CUSTOM, _DATACLASS)}


# ---------------------------------------------------------------------------------- registry


class _Registration:
    """How to open up (flatten) and rebuild (unflatten) one node type."""

    __slots__ = ("kind", "type", "flatten", "unflatten", "flatten_with_keys",
                 "data_fields", "meta_fields")

    def __init__(self, kind: str, nodetype: type, flatten: Callable | None = None,
                 unflatten: Callable | None = None, flatten_with_keys: Callable | None = None,
                 data_fields: tuple[str, ...] = (), meta_fields: tuple[str, ...] = ()):
        self.kind = kind
        self.type = nodetype
        self.flatten = flatten                      # _CUSTOM: x -> (children, aux_data)
        self.unflatten = unflatten                  # _CUSTOM: (aux_data, children) -> x
        self.flatten_with_keys = flatten_with_keys  # _CUSTOM: x -> ([(key, child)], aux)
        self.data_fields = data_fields              # _DATACLASS: fields that are children
        self.meta_fields = meta_fields              # _DATACLASS: fields kept in the treedef


# The registry: exact type -> _Registration. Built-in containers are registered here with
# their own kinds; register_pytree_node and friends add _CUSTOM/_DATACLASS entries.
_registry: dict[type, _Registration] = {
    type(None): _Registration(_NONE, type(None)),
    tuple: _Registration(_TUPLE, tuple),
    list: _Registration(_LIST, list),
    dict: _Registration(_DICT, dict),
}


def _is_namedtuple(x: Any) -> bool:
    # There is no NamedTuple base class to test for, so, like JAX, we use a heuristic:
    # a tuple (subclass) instance with a `_fields` attribute.
    return isinstance(x, tuple) and hasattr(x, "_fields")


# Iterators and views that JAX treats as leaves but warns about: passing `zip(...)` or a
# generator where a list was meant is almost always a bug. (Real JAX plans to make it an
# error.) Checked by exact type, so the check costs one set lookup per leaf.
_WARN_ITERATOR_TYPES = frozenset({
    types.GeneratorType, zip, map, filter, enumerate, reversed,
    type(iter([])), type(iter(())), type(iter(set())),
    type(iter({})), type(iter({}.values())), type(iter({}.items())), type({}.values()),
})


def _warn_iterator_leaf(x: Any) -> None:
    # stacklevel=2 blames this module, as JAX's C++ code blames its own Python caller; the
    # default filters then hide the warning outside tests, exactly as with real JAX.
    warnings.warn(
        f"Python iterable type '{type(x).__name__}' is treated as a leaf in PyTree. "
        "Use is_leaf to suppress this warning if you want this behavior. In a future "
        "version of JAX, this will become an error.", DeprecationWarning, stacklevel=2)


def _sorted_keys(d: dict) -> list:
    """The keys of a dict in sorted order (the order a dict's children are stored in)."""
    try:
        return sorted(d)
    except Exception as e:  # e.g. {1: ..., 'a': ...}: int and str cannot be compared
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys.") from e


def _is_leaf_says_yes(result: Any) -> bool:
    """Interpret what a user's `is_leaf` returned. JAX accepts True, False and None only."""
    if result is True or result is False:
        return result
    if result is None:
        return False
    raise ValueError(
        f"is_leaf predicate returned a non-boolean value {result!r}; expected a boolean")


def _custom_children(registration: _Registration, x: Any) -> tuple[Iterable, Any]:
    """Call a custom node's flatten function, checking it returned (children, aux_data)."""
    out = registration.flatten(x)
    if not isinstance(out, tuple) or len(out) != 2:
        raise ValueError("The to_iterable function for a custom PyTree node should return "
                         f"a (children, aux_data) tuple, got {out!r}")
    children, aux_data = out
    try:
        iter(children)
    except TypeError:
        raise ValueError(
            "The to_iterable function for a custom PyTree node should return a "
            "(children, aux_data) tuple where 'children' is iterable, got "
            f"{out!r}") from None
    return children, aux_data


# ---------------------------------------------------------------------------------- PyTreeDef


class PyTreeDef:
    """The structure of a pytree: its containers, with the leaves left out.

    Get one from ``tree_structure(tree)`` or ``tree_flatten(tree)``; do not build one by
    hand. A treedef is immutable and hashable, and two treedefs are equal when they have
    the same node types, the same static data (dict keys, custom aux data) and the same
    children. It prints like the tree it came from, with ``*`` for each leaf::

        >>> tree_structure([1, {'k1': 2, 'k2': (3, 4)}, 5])
        PyTreeDef([*, {'k1': *, 'k2': (*, *)}, *])
    """

    __slots__ = ("_kind", "_registration", "_node_data", "_children",
                 "_num_leaves", "_num_nodes", "_hash")

    def __init__(self, kind: str, registration: _Registration | None, node_data: Any,
                 children: tuple[PyTreeDef, ...], num_leaves: int):
        self._kind = kind                  # one of the _LEAF, _TUPLE, ... constants
        self._registration = registration  # how to rebuild this node (None: leaf, namedtuple)
        self._node_data = node_data        # dict: sorted keys; namedtuple: its class;
        #                                    custom: aux data; dataclass: meta field values
        self._children = children          # the child treedefs, in flattening order
        self._num_leaves = num_leaves
        self._num_nodes = None             # computed on first use
        self._hash = None                  # computed on first use

    # -- simple queries ----------------------------------------------------------------------

    @property
    def num_leaves(self) -> int:
        """How many leaves a tree with this structure has."""
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """How many nodes (containers and leaves, None included) the structure has."""
        if self._num_nodes is None:
            self._num_nodes = 1 + sum(child.num_nodes for child in self._children)
        return self._num_nodes

    def children(self) -> list[PyTreeDef]:
        """The treedefs of the root's direct children (``[]`` for a leaf or None)."""
        return list(self._children)

    def node_data(self) -> tuple[type, Any] | None:
        """``(node type, static data)`` of the root node, or None if the root is a leaf."""
        kind = self._kind
        if kind == _LEAF:
            return None
        if kind == _DICT:
            return dict, list(self._node_data)
        if kind == _NAMEDTUPLE:
            return self._node_data, None
        if kind == _CUSTOM or kind == _DATACLASS:
            return self._registration.type, self._node_data
        return self._registration.type, None  # None, tuple, list

    # -- rebuilding trees --------------------------------------------------------------------

    def unflatten(self, leaves: Iterable[Leaf]) -> Any:
        """Build a tree of this structure whose leaves are ``leaves`` (in order)."""
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            if len(leaves) < self._num_leaves:
                raise ValueError(f"Too few leaves for PyTreeDef; expected {self._num_leaves}, "
                                 f"got {len(leaves)}")
            raise ValueError(f"Too many leaves for PyTreeDef; expected {self._num_leaves}.")
        return _unflatten(self, iter(leaves))

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """Flatten ``tree`` only as deep as this structure goes.

        This structure must be a *prefix* of the tree's: where this treedef has a leaf,
        the tree may have a whole subtree, and that subtree is returned as one "leaf".
        ``tree_map(f, a, b)`` uses this to line up ``b`` with the leaves of ``a``::

            >>> tree_structure((1, 2)).flatten_up_to(([1, 2], {'x': 3}))
            [[1, 2], {'x': 3}]

        Raises ValueError describing a container that does not match.
        """
        leaves: list[Any] = []
        _flatten_up_to(self, tree, leaves)
        leaves.reverse()  # _flatten_up_to collects right to left; see there
        return leaves

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """The structure obtained by putting a copy of ``inner`` at every leaf of ``self``."""
        if self._kind == _LEAF:
            return inner
        children = tuple(child.compose(inner) for child in self._children)
        return PyTreeDef(self._kind, self._registration, self._node_data, children,
                         self._num_leaves * inner._num_leaves)

    # -- equality, hashing, printing, pickling -----------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PyTreeDef) and _treedefs_equal(self, other)

    def __ne__(self, other: object) -> bool:
        # Mirrors JAX exactly, including a quirk: comparing with a non-treedef gives False
        # for both == and !=.
        return isinstance(other, PyTreeDef) and not _treedefs_equal(self, other)

    def __hash__(self) -> int:
        # Like JAX, hash the *shape* of the tree only (kinds, types, arities, dict keys)
        # and not custom aux data, which need not be hashable. Equal treedefs have equal
        # shapes, so equal hashes, which is all a hash must guarantee. A treedef never
        # changes, so the hash is computed once and kept.
        if self._hash is None:
            kind = self._kind
            if kind == _DICT or kind == _NAMEDTUPLE:
                static = self._node_data
            elif self._registration is not None:
                static = self._registration.type
            else:
                static = None
            self._hash = hash((kind, static, tuple(map(hash, self._children))))
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({_treedef_str(self)})"

    __str__ = __repr__

    def __reduce__(self):
        # Pickle by registered *type*: registrations hold functions, which may not pickle.
        nodetype = None if self._registration is None else self._registration.type
        return _treedef_from_pickle, (self._kind, nodetype, self._node_data, self._children)


# The one and only treedef of a leaf. Sharing it means flattening allocates nothing per leaf.
_LEAF_DEF = PyTreeDef(_LEAF, None, None, (), 1)


def _treedef_from_pickle(kind: str, nodetype: type | None, node_data: Any,
                         children: tuple[PyTreeDef, ...]) -> PyTreeDef:
    kind = _KINDS[kind]
    if kind == _LEAF:
        return _LEAF_DEF
    registration = None
    if nodetype is not None:
        registration = _registry.get(nodetype)
        if registration is None:
            raise ValueError(f"Unknown custom type in pickled PyTreeDef: {nodetype!r}")
    num_leaves = sum(child._num_leaves for child in children)
    return PyTreeDef(kind, registration, node_data, tuple(children), num_leaves)


def _same_node_data(a: PyTreeDef, b: PyTreeDef) -> bool:
    """Compare two nodes' static data with ``!=``, as JAX does, explaining failures."""
    try:
        return not (a._node_data != b._node_data)
    except Exception as e:  # e.g. arrays in aux data: `!=` gives an array, not a bool
        raise ValueError(
            "Exception raised while checking equality of metadata fields of pytree. Make "
            "sure that metadata fields are hashable and have simple equality semantics. "
            "(Note: arrays cannot be passed as metadata fields!)") from e


def _treedefs_equal(a: PyTreeDef, b: PyTreeDef) -> bool:
    if a is b:
        return True
    if (a._kind != b._kind or a._registration is not b._registration
            or len(a._children) != len(b._children)):
        return False
    # `is` first: it is fast, and (as in JAX) identical aux data is equal even if it is an
    # array, whose `!=` would not give a bool.
    if a._node_data is not b._node_data and not _same_node_data(a, b):
        return False
    for x, y in zip(a._children, b._children):
        if x is not y and not _treedefs_equal(x, y):  # `is`: all leaves share _LEAF_DEF
            return False
    return True


def _treedef_str(treedef: PyTreeDef) -> str:
    """The text inside ``PyTreeDef(...)``: the tree with ``*`` for every leaf."""
    kind = treedef._kind
    if kind == _LEAF:
        return "*"
    if kind == _NONE:
        return "None"
    children = [_treedef_str(child) for child in treedef._children]
    if kind == _TUPLE:
        return "(" + ", ".join(children) + (",)" if len(children) == 1 else ")")
    if kind == _LIST:
        return "[" + ", ".join(children) + "]"
    if kind == _DICT:
        items = (f"{key!r}: {child}" for key, child in zip(treedef._node_data, children))
        return "{" + ", ".join(items) + "}"
    # Namedtuples and registered types print as CustomNode(Name[static data], [children]).
    if kind == _NAMEDTUPLE:
        name, data = "namedtuple", treedef._node_data.__name__
    else:
        name, data = treedef._registration.type.__name__, treedef._node_data
    return f"CustomNode({name}[{data}], [{', '.join(children)}])"


# ---------------------------------------------------------------------------------- flatten


def _flatten(tree: Any, leaves: list, is_leaf: Callable[[Any], bool] | None) -> PyTreeDef:
    """Append the leaves of ``tree`` to ``leaves`` (left to right) and return its treedef.

    This is the hot path of every jit call, so the built-in containers are handled inline
    instead of through a per-type function, and a leaf costs only a few cheap checks.
    """
    if is_leaf is not None and _is_leaf_says_yes(is_leaf(tree)):
        leaves.append(tree)
        return _LEAF_DEF

    # 1. What kind of node is this? Exact-type lookup first, namedtuple test second.
    registration = _registry.get(type(tree))
    if registration is None:
        if not (isinstance(tree, tuple) and hasattr(tree, "_fields")):
            if type(tree) in _WARN_ITERATOR_TYPES:
                _warn_iterator_leaf(tree)
            leaves.append(tree)  # not a container JAX knows: a leaf
            return _LEAF_DEF
        kind = _NAMEDTUPLE
    else:
        kind = registration.kind

    # 2. Split the node into its children and its static data.
    node_data = None
    if kind == _DICT:
        keys = _sorted_keys(tree)
        node_data = tuple(keys)
        child_values = [tree[key] for key in keys]
    elif kind == _TUPLE or kind == _LIST:
        child_values = tree
    elif kind == _NONE:
        child_values = ()
    elif kind == _NAMEDTUPLE:
        node_data = type(tree)  # unflatten calls the class to rebuild the namedtuple
        child_values = tree
    elif kind == _CUSTOM:
        child_values, node_data = _custom_children(registration, tree)
    else:  # _DATACLASS
        node_data = tuple([getattr(tree, name) for name in registration.meta_fields])
        child_values = [getattr(tree, name) for name in registration.data_fields]

    # 3. Flatten the children (recursively), then describe this node.
    start = len(leaves)
    children = []
    for child in child_values:
        children.append(_flatten(child, leaves, is_leaf))
    return PyTreeDef(kind, registration, node_data, tuple(children), len(leaves) - start)


def _unflatten(treedef: PyTreeDef, leaves: Iterator) -> Any:
    """Rebuild a tree of shape ``treedef``, taking its leaves from the iterator ``leaves``."""
    kind = treedef._kind
    if kind == _LEAF:
        return next(leaves)
    children = []
    for child in treedef._children:
        children.append(next(leaves) if child is _LEAF_DEF else _unflatten(child, leaves))
    if kind == _DICT:
        return dict(zip(treedef._node_data, children))  # keys in sorted order
    if kind == _LIST:
        return children
    if kind == _TUPLE:
        return tuple(children)
    if kind == _NONE:
        return None
    if kind == _NAMEDTUPLE:
        return treedef._node_data(*children)
    registration = treedef._registration
    if kind == _CUSTOM:
        return registration.unflatten(treedef._node_data, tuple(children))
    # _DATACLASS: call the class with every field as a keyword argument.
    kwargs = dict(zip(registration.meta_fields, treedef._node_data))
    kwargs.update(zip(registration.data_fields, children))
    return registration.type(**kwargs)


def _flatten_up_to(treedef: PyTreeDef, tree: Any, leaves: list) -> None:
    """Append to ``leaves``, *right to left*, the subtrees of ``tree`` at treedef's leaves.

    Real JAX walks the tree with a stack and so checks the rightmost child first. We do the
    same (and the caller reverses ``leaves``) so that when a tree mismatches in several
    places, the error names the same place JAX's does.
    """
    if treedef._kind == _LEAF:
        leaves.append(tree)
        return
    children = _children_to_match(treedef, tree)
    for child_def, child in zip(reversed(treedef._children), reversed(children)):
        _flatten_up_to(child_def, child, leaves)


def _children_to_match(treedef: PyTreeDef, tree: Any) -> Sequence[Any]:
    """Check that ``tree``'s root node matches ``treedef``'s root; return its children."""
    kind, arity = treedef._kind, len(treedef._children)
    if kind == _NONE:
        if tree is not None:
            raise ValueError(
                f"Expected None, got {tree!r}.\n\n"
                "In previous releases of JAX, flatten-up-to used to consider None to be a "
                "tree-prefix of non-None values. To obtain the previous behavior, you can "
                "usually write:\n"
                "  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
                "is_leaf=lambda x: x is None)")
        return ()
    if kind == _TUPLE or kind == _LIST:
        if type(tree) is not treedef._registration.type:
            raise ValueError(f"Expected {kind}, got {tree!r}.")
        if len(tree) != arity:
            raise ValueError(f"{kind.capitalize()} arity mismatch: {len(tree)} != {arity}; "
                             f"{kind}: {tree!r}.")
        return tree
    if kind == _DICT:
        if type(tree) is not dict:
            raise ValueError(f"Expected dict, got {tree!r}.")
        keys = _sorted_keys(tree)
        if tuple(keys) != treedef._node_data:
            raise ValueError(f"Dict key mismatch; expected keys: {list(treedef._node_data)!r}; "
                             f"present keys: {keys!r}.")
        return [tree[key] for key in keys]
    if kind == _NAMEDTUPLE:
        if not _is_namedtuple(tree):
            raise ValueError(f"Expected named tuple, got {tree!r}.")
        if len(tree) != arity:
            raise ValueError(
                f"Named tuple arity mismatch: {len(tree)} != {arity}; tuple: {tree!r}.")
        if type(tree) is not treedef._node_data:
            raise ValueError(f"Named tuple type mismatch: expected type: "
                             f"{treedef._node_data!r}, tuple: {tree!r}.")
        return tree

    # A registered type: the value must have exactly the registered type, the same static
    # data, and the same number of children.
    registration = treedef._registration
    what = "node" if kind == _CUSTOM else "dataclass node"
    if _registry.get(type(tree)) is not registration:
        raise ValueError(f"Custom {what} type mismatch: expected type: "
                         f"{registration.type!r}, value: {tree!r}.")
    if kind == _CUSTOM:
        child_values, node_data = _custom_children(registration, tree)
        children = list(child_values)
    else:
        node_data = tuple(getattr(tree, name) for name in registration.meta_fields)
        children = [getattr(tree, name) for name in registration.data_fields]
    expected = treedef._node_data
    if expected is not node_data and expected != node_data:
        raise ValueError(f"Mismatch custom {what} data: {expected!r} != {node_data!r}; "
                         f"value: {tree!r}.")
    if len(children) != arity:
        raise ValueError(
            f"Custom type arity mismatch: {len(children)} != {arity}; value: {tree!r}.")
    return children


# ---------------------------------------------------------------------------------- key paths

# A key path names where a leaf sits in a tree: a tuple of key entries, one per level,
# e.g. (DictKey('a'), SequenceKey(0)), which keystr prints as "['a'][0]".


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """Path entry for child number ``idx`` of a list or tuple. Prints as ``[idx]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx}]"


@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
    """Path entry for the value under ``key`` in a dict. Prints as ``[repr(key)]``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """Path entry for attribute ``name`` (namedtuple and dataclass fields). Prints ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """Path entry for child number ``key`` of a custom node registered without keys."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


KeyEntry = Any  # SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey or a user's own key
KeyLeafPair = tuple[KeyEntry, Any]
KeyPath = tuple[KeyEntry, ...]


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Join a key path into a string.

    >>> keystr((DictKey('a'), SequenceKey(0)))
    "['a'][0]"
    >>> keystr((DictKey('a'), SequenceKey(0), GetAttrKey('x')), simple=True, separator='/')
    'a/0/x'
    """
    to_str = _simple_entrystr if simple else str
    return separator.join(map(to_str, keys))


def _simple_entrystr(key: KeyEntry) -> str:
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return str(key.name)
    return str(key)


def _keyed_children(registration: _Registration | None, tree: Any) -> list[KeyLeafPair]:
    """The ``(key, child)`` pairs of a node; ``registration`` is None for namedtuples."""
    if registration is None:  # namedtuple
        fields = tree._fields
        if not isinstance(fields, tuple) or len(fields) != len(tree):
            raise ValueError("A namedtuple's _fields attribute should have the same size "
                             "as the tuple.")
        return [(GetAttrKey(str(name)), child) for name, child in zip(fields, tree)]
    kind = registration.kind
    if kind == _TUPLE or kind == _LIST:
        return [(SequenceKey(i), child) for i, child in enumerate(tree)]
    if kind == _DICT:
        return [(DictKey(key), tree[key]) for key in _sorted_keys(tree)]
    if kind == _NONE:
        return []
    if kind == _DATACLASS:
        return [(GetAttrKey(name), getattr(tree, name)) for name in registration.data_fields]
    raise AssertionError(kind)  # _CUSTOM is handled by _custom_keyed_children


def _custom_keyed_children(registration: _Registration, tree: Any) -> tuple[list, Any]:
    """``([(key, child), ...], aux_data)`` for a custom node, checking the user's output."""
    if registration.flatten_with_keys is None:
        # Registered without keys: name children by position.
        children, aux_data = _custom_children(registration, tree)
        return [(FlattenedIndexKey(i), child) for i, child in enumerate(children)], aux_data
    out = registration.flatten_with_keys(tree)
    if not isinstance(out, tuple) or len(out) != 2:
        raise ValueError("The to_iterable_with_keys function for a custom PyTree node should "
                         f"return a (key_leaf_pairs, aux_data) tuple, got {out!r}")
    pairs, aux_data = out
    try:
        pairs = list(pairs)
    except TypeError:
        raise ValueError(
            "The to_iterable_with_keys function for a custom PyTree node should return a "
            "(key_leaf_pairs, aux_data) tuple where 'key_leaf_pairs' is iterable, got "
            f"{out!r}") from None
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(
                "The to_iterable_with_keys function for a custom PyTree node should return "
                f"a (key_leaf_pairs, aux_data) tuple where 'child{pair!r}")
    return pairs, aux_data


def _flatten_with_path(tree: Any, path: KeyPath, leaves: list,
                       is_leaf: Callable[[KeyPath, Any], bool] | None) -> PyTreeDef:
    """Like _flatten, but appends ``(key_path, leaf)`` pairs. Not on jit's hot path."""
    if is_leaf is not None and _is_leaf_says_yes(is_leaf(path, tree)):
        leaves.append((path, tree))
        return _LEAF_DEF
    registration = _registry.get(type(tree))
    if registration is None and not _is_namedtuple(tree):
        if type(tree) in _WARN_ITERATOR_TYPES:
            _warn_iterator_leaf(tree)
        leaves.append((path, tree))
        return _LEAF_DEF

    if registration is None:
        kind, node_data = _NAMEDTUPLE, type(tree)
        pairs = _keyed_children(None, tree)
    elif registration.kind == _CUSTOM:
        kind = _CUSTOM
        pairs, node_data = _custom_keyed_children(registration, tree)
    else:
        kind = registration.kind
        pairs = _keyed_children(registration, tree)
        if kind == _DICT:
            node_data = tuple(key.key for key, _ in pairs)
        elif kind == _DATACLASS:
            node_data = tuple(getattr(tree, name) for name in registration.meta_fields)
        else:
            node_data = None
    start = len(leaves)
    children = tuple([_flatten_with_path(child, (*path, key), leaves, is_leaf)
                      for key, child in pairs])
    return PyTreeDef(kind, registration, node_data, children, len(leaves) - start)


# ---------------------------------------------------------------------------------- public API


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Leaf], PyTreeDef]:
    """Flatten a pytree into its list of leaves and its structure.

    ``is_leaf(x)`` is called on every subtree before it is opened; returning True makes
    that subtree a leaf.

    >>> tree_flatten({'b': [1, 2], 'a': (3, None)})
    ([3, 1, 2], PyTreeDef({'a': (*, None), 'b': [*, *]}))
    """
    leaves: list[Leaf] = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Leaf]) -> Any:
    """Build a pytree with structure ``treedef`` and the given leaves (inverse of flatten)."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Leaf]:
    """The leaves of a pytree, in flattening order.

    >>> tree_leaves([1, {'z': 2, 'a': 3}, None])
    [1, 3, 2]
    """
    leaves: list[Leaf] = []
    _flatten(tree, leaves, is_leaf)
    return leaves


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure (treedef) of a pytree."""
    return _flatten(tree, [], is_leaf)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply ``f`` to every leaf of ``tree``, keeping the structure.

    With several trees, ``f`` gets one leaf from each: ``tree`` decides the structure, and
    each tree in ``rest`` must have that structure or a deeper one (a leaf of ``tree`` may
    face a whole subtree, which ``f`` then receives as one value).

    >>> tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, 3)}, {'a': 10, 'b': (20, 30)})
    {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    all_leaves = [leaves]
    for other in rest:
        try:
            all_leaves.append(treedef.flatten_up_to(other))
        except Exception as e:
            # Replace the terse low-level message with one that names the key path.
            err = next(_prefix_error((), tree, other, is_leaf), None)
            raise (err("tree_map tree") if err is not None else e) from None
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves)])


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like ``tree_flatten``, but each leaf comes with its key path.

    >>> leaves, _ = tree_flatten_with_path({'a': [1, 2]})
    >>> [(keystr(path), leaf) for path, leaf in leaves]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    predicate = is_leaf
    if is_leaf is not None and not is_leaf_takes_path:
        predicate = lambda _, x: is_leaf(x)
    leaves: list[tuple[KeyPath, Any]] = []
    treedef = _flatten_with_path(tree, (), leaves, predicate)
    return leaves, treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """The ``(key_path, leaf)`` pairs of a pytree."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like ``tree_map``, but ``f`` also gets each leaf's key path as first argument."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    columns = list(zip(*path_leaves)) or [(), ()]  # [paths, leaves]
    for other in rest:
        try:
            columns.append(treedef.flatten_up_to(other))
        except Exception as e:
            plain_is_leaf = None if is_leaf_takes_path else is_leaf
            err = next(_prefix_error((), tree, other, plain_is_leaf), None)
            raise (err("tree_map_with_path tree") if err is not None else e) from None
    return treedef.unflatten([f(*xs) for xs in zip(*columns)])


class _Missing:
    """Marks "no initializer given" (None could be a real initializer)."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def tree_reduce(function: Callable[[T, Any], T], tree: Any, initializer: Any = _MISSING,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Combine the leaves with ``function``, left to right, like ``functools.reduce``.

    >>> tree_reduce(lambda a, b: a + b, {'a': [1, 2], 'b': 3})
    6
    """
    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if initializer is _MISSING:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: Any = _MISSING,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Combine the leaves pairwise in a balanced tree; ``operation`` must be associative."""

    def reduce(sequence: list) -> Any:
        if not sequence:
            if identity is _MISSING:
                raise TypeError(
                    "Must specify identity for parallel reduction of empty sequence.")
            return identity
        if len(sequence) == 1:
            return sequence[0]
        middle = len(sequence) // 2
        return operation(reduce(sequence[:middle]), reduce(sequence[middle:]))

    return reduce(tree_leaves(tree, is_leaf=is_leaf))


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy (and for a tree with no leaves)."""
    return all(tree_leaves(tree, is_leaf=is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn an outer-of-inner tree into an inner-of-outer tree.

    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])

    With ``inner_treedef=None`` the inner structure is taken from the first outer leaf.
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected_treedef = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected_treedef}")
    # Row i of `rows` holds the inner leaves found at outer leaf i; zip(*) swaps the axes.
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    subtrees = [outer_treedef.unflatten(column) for column in zip(*rows)]
    return inner_treedef.unflatten(subtrees)


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Copy each leaf of ``prefix_tree`` over the matching subtree of ``full_tree``.

    >>> tree_broadcast([1, 2], [(3, 4), {'a': 5}])
    [(1, 1), {'a': 2}]
    """
    broadcast_leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_structure(full_tree).unflatten(broadcast_leaves)


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of ``full_tree``'s shape, each taken from the matching prefix leaf."""
    result: list[Any] = []

    def add_leaves(x: Any, subtree: Any) -> None:
        result.extend([x] * tree_structure(subtree).num_leaves)

    try:
        tree_map(add_leaves, prefix_tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(prefix_tree, full_tree)
        raise e("broadcast_prefix prefix_tree") from None
    return result


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose elements have the given structures."""
    children = tuple(treedefs)
    for child in children:
        if not isinstance(child, PyTreeDef):
            raise TypeError(f"treedef_tuple expects PyTreeDefs, got {child!r}")
    num_leaves = sum(child._num_leaves for child in children)
    return PyTreeDef(_TUPLE, _registry[tuple], None, children, num_leaves)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children: ``treedef.children()``."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True if the structure is a single node: a leaf, or an empty container/None."""
    return treedef.num_nodes == 1


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """True if the structure is exactly one leaf (not None, not an empty container)."""
    return treedef._kind == _LEAF


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if no element of ``iterable`` is a pytree node.

    >>> all_leaves([1, 'a']), all_leaves([1, [2]]), all_leaves([None])
    (True, False, False)
    """
    if is_leaf is None:
        return all(type(x) not in _registry and not _is_namedtuple(x) for x in iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(
        item is leaf for item, leaf in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """True if values of type ``typ`` are pytree nodes (built-in, registered or namedtuple)."""
    if typ in _registry:
        return True
    return isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields")


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """Open up only the root node: ``(children, node_data)``. Raises ValueError for leaves.

    >>> flatten_one_level({'b': [1], 'a': 2})
    ((2, [1]), ('a', 'b'))
    """
    registration = _registry.get(type(tree))
    if registration is None:
        if _is_namedtuple(tree):
            return list(tree), type(tree)
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    kind = registration.kind
    if kind == _TUPLE or kind == _LIST:
        return tree, None
    if kind == _DICT:
        keys = tuple(_sorted_keys(tree))
        return tuple(tree[key] for key in keys), keys
    if kind == _NONE:
        return (), None
    if kind == _CUSTOM:
        return _custom_children(registration, tree)
    return ([getattr(tree, name) for name in registration.data_fields],
            tuple(getattr(tree, name) for name in registration.meta_fields))


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[KeyLeafPair], Hashable]:
    """Like ``flatten_one_level``, but the children come as ``(key, child)`` pairs."""
    registration = _registry.get(type(tree))
    if registration is None:
        if _is_namedtuple(tree):
            return _keyed_children(None, tree), type(tree)
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    if registration.kind == _CUSTOM:
        return _custom_keyed_children(registration, tree)
    _, node_data = flatten_one_level(tree)
    pairs = _keyed_children(registration, tree)
    return (pairs if registration.kind == _DATACLASS else tuple(pairs)), node_data


# ---------------------------------------------------------------------------------- errors

# When tree_map's trees do not match, flatten_up_to's message ("Tuple arity mismatch: ...")
# does not say *where*. These helpers walk both trees side by side and describe the first
# difference with its key path, word for word as JAX does.


def _is_strict_leaf(tree: Any, is_leaf: Callable[[Any], bool] | None) -> bool:
    if is_leaf is not None and _is_leaf_says_yes(is_leaf(tree)):
        return True
    return type(tree) not in _registry and not _is_namedtuple(tree)


def _child_keys(tree: Any) -> KeyPath:
    return tuple(key for key, _ in flatten_one_level_with_keys(tree)[0])


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None
                  ) -> list[Callable[[str], ValueError]]:
    """Why ``prefix_tree`` is not a prefix of ``full_tree``: error factories taking a name."""
    return list(_prefix_error((), prefix_tree, full_tree, is_leaf))


def _prefix_error(key_path: KeyPath, prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None
                  ) -> Iterator[Callable[[str], ValueError]]:
    # A leaf is a valid prefix of any tree.
    if _is_strict_leaf(prefix_tree, is_leaf):
        return

    # The roots may have different types...
    if type(prefix_tree) is not type(full_tree):
        yield lambda name: ValueError(
            "pytree structure error: different types at key path\n"
            f"    {name}{keystr(key_path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix_tree)}\n"
            "but at the same key path the full pytree has a subtree of different type\n"
            f"    {type(full_tree)}.")
        return

    # ...or different numbers of children (lists and tuples report their lengths)...
    prefix_children, prefix_meta = flatten_one_level(prefix_tree)
    full_children, full_meta = flatten_one_level(full_tree)
    prefix_children = tuple(prefix_children)
    full_children = tuple(full_children)
    prefix_keys = _child_keys(prefix_tree)
    full_keys = _child_keys(full_tree)
    if isinstance(prefix_tree, (list, tuple)):
        if len(prefix_tree) != len(full_tree):
            ty = type(prefix_tree)
            yield lambda name: ValueError(
                f"pytree structure error: different lengths of {ty.__name__} at key path\n"
                f"    {name}{keystr(key_path)}\n"
                f"At that key path, the prefix pytree {name} has a subtree of type "
                f"{ty.__name__} of length {len(prefix_tree)}, but the full pytree has a "
                f"subtree of the same type but of length {len(full_tree)}.")
            return
    else:
        try:
            diff = set(prefix_keys).symmetric_difference(set(full_keys))
        except Exception:
            diff = None
        if len(prefix_children) != len(full_children):
            yield lambda name: ValueError(
                "pytree structure error: different numbers of pytree children at key path\n"
                f"    {name}{keystr(key_path)}\n"
                f"At that key path, the prefix pytree {name} has a subtree of type\n"
                f"    {type(prefix_tree)}\n"
                f"with {len(prefix_children)} child keys\n"
                f"    {' '.join(_simple_entrystr(k) for k in prefix_keys)}\n"
                "but at the same key path the full pytree has a subtree of the same "
                f"type but with {len(full_children)} child keys\n"
                f"    {' '.join(_simple_entrystr(k) for k in full_keys)}\n"
                + ("" if diff is None else
                   "so the symmetric difference on key sets is\n"
                   f"    {' '.join(_simple_entrystr(k) for k in diff)}"))
            return

    # ...or different static data (dict keys, custom aux data)...
    if prefix_meta != full_meta:
        prefix_meta_str, full_meta_str = str(prefix_meta), str(full_meta)
        metadata_diff = textwrap.indent(
            "\n".join(difflib.ndiff(prefix_meta_str.splitlines(),
                                    full_meta_str.splitlines())),
            prefix="    ")
        yield lambda name: ValueError(
            "pytree structure error: different pytree metadata at key path\n"
            f"    {name}{keystr(key_path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix_tree)}\n"
            "with metadata\n"
            f"    {prefix_meta_str}\n"
            "but at the same key path the full pytree has a subtree of the same "
            "type but with metadata\n"
            f"    {full_meta_str}\n"
            "so the diff in the metadata at these pytree nodes is\n"
            f"{metadata_diff}")
        return

    # ...otherwise the roots agree and the difference is further down.
    for key, prefix_child, full_child in zip(prefix_keys, prefix_children, full_children):
        yield from _prefix_error((*key_path, key), prefix_child, full_child, is_leaf)


def equality_errors(tree1: Any, tree2: Any, is_leaf: Callable[[Any], bool] | None = None
                    ) -> Iterator[tuple[KeyPath, str, str, str]]:
    """Describe how two pytrees differ in structure: ``(path, thing1, thing2, explanation)``."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def _equality_errors(path: KeyPath, t1: Any, t2: Any,
                     is_leaf: Callable[[Any], bool] | None
                     ) -> Iterator[tuple[KeyPath, str, str, str]]:
    if _is_strict_leaf(t1, is_leaf) and _is_strict_leaf(t2, is_leaf):
        return
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    t1_children, t1_meta = flatten_one_level(t1)
    t2_children, t2_meta = flatten_one_level(t2)
    t1_children, t2_children = tuple(t1_children), tuple(t2_children)
    t1_keys, t2_keys = _child_keys(t1), _child_keys(t2)
    try:
        diff = " ".join(repr(k.key) for k in set(t1_keys).symmetric_difference(set(t2_keys)))
    except Exception:
        diff = ""
    if len(t1_children) != len(t2_children):
        n1, n2 = len(t1_children), len(t2_children)
        yield (path, f"{type(t1)} with {n1} child{'ren' if n1 > 1 else ''}",
               f"{type(t2)} with {n2} child{'ren' if n2 > 1 else ''}",
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if t1_meta != t2_meta:
        yield (path, f"{type(t1)} with pytree metadata {t1_meta}",
               f"{type(t2)} with pytree metadata {t2_meta}",
               "the pytree node metadata does not match")
        return
    for key, c1, c2 in zip(t1_keys, t1_children, t2_children):
        yield from _equality_errors((*path, key), c1, c2, is_leaf)


# ---------------------------------------------------------------------------------- registering


def _register(registration: _Registration, what: str) -> None:
    if registration.type in _registry:
        raise ValueError(
            f"Duplicate custom {what}PyTreeDef type registration for {registration.type!r}.")
    _registry[registration.type] = registration


def register_pytree_node(nodetype: type[T],
                         flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]],
                         unflatten_func: Callable[[Hashable, Iterable[Any]], T],
                         flatten_with_keys_func: Callable[[T], tuple[Iterable[KeyLeafPair],
                                                                     Hashable]] | None = None,
                         ) -> None:
    """Make ``nodetype`` a pytree node.

    ``flatten_func(x)`` returns ``(children, aux_data)``: the children are flattened
    further; ``aux_data`` is static (hashable) data kept in the treedef.
    ``unflatten_func(aux_data, children)`` rebuilds the value.

    >>> class Point:
    ...     def __init__(self, x, y):
    ...         self.x, self.y = x, y
    >>> register_pytree_node(Point, lambda p: ((p.x, p.y), None),
    ...                      lambda aux, children: Point(*children))
    >>> tree_leaves([Point(1, 2), 3])
    [1, 2, 3]
    """
    _register(_Registration(_CUSTOM, nodetype, flatten_func, unflatten_func,
                            flatten_with_keys_func), "")


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: register ``cls`` using its ``tree_flatten`` method and its
    ``tree_unflatten(aux_data, children)`` classmethod."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(
        nodetype: type[T],
        flatten_with_keys: Callable[[T], tuple[Iterable[KeyLeafPair], Hashable]],
        unflatten_func: Callable[[Hashable, Iterable[Any]], T],
        flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]] | None = None) -> None:
    """Like ``register_pytree_node``, but flattening also names each child with a key.

    ``flatten_with_keys(x)`` returns ``([(key, child), ...], aux_data)``; the keys show up
    in ``tree_flatten_with_path``. ``flatten_func`` (children without keys) is optional and
    only makes plain flattening faster.
    """
    if flatten_func is None:
        def flatten_func(tree):
            key_children, aux_data = flatten_with_keys(tree)
            return [child for _, child in key_children], aux_data
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator using ``tree_flatten_with_keys`` (and ``tree_flatten`` if present)."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def register_dataclass(nodetype: Typ, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Typ:
    """Register a class whose state is a set of named fields (usually a dataclass).

    ``data_fields`` are children (arrays, pytrees); ``meta_fields`` are static and stored in
    the treedef (so they must be hashable). Unflattening calls ``nodetype(**fields)``. For a
    dataclass both lists may be omitted: fields declared with
    ``dataclasses.field(metadata=dict(static=True))`` are meta fields, the rest data fields.
    Returns ``nodetype``, so it works as a decorator.
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                            "specified when either is specified. Got "
                            f"{data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]

    # Keep our own immutable copies: the caller may mutate the lists later.
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields.difference_update(drop_fields)
        if {*meta_fields, *data_fields} != init_fields:
            msg = ("data_fields and meta_fields must include all dataclass fields with "
                   "``init=True`` and only them.")
            if missing := init_fields - {*meta_fields, *data_fields}:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to suppress "
                        "this error.")
            if unexpected := {*meta_fields, *data_fields} - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(
            f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}.")

    _register(_Registration(_DATACLASS, nodetype, data_fields=data_fields,
                            meta_fields=meta_fields), "dataclass ")
    return nodetype


def static(**kwargs: Any) -> Any:
    """A dataclass field that ``register_dataclass`` treats as static (part of the treedef).

    ``x: int = jax.tree.static(default=3)`` is ``dataclasses.field(default=3,
    metadata={"static": True})``: the shortcut JAX offers for meta fields.
    """
    metadata = {**kwargs.pop("metadata", {}), "static": True}
    return dataclasses.field(metadata=metadata, **kwargs)


def register_static(cls: type[T]) -> type[T]:
    """Register ``cls`` as a node with no children: its values live in the treedef.

    ``jit`` then treats such values as static, like ``static_argnums`` would. Instances
    must be hashable. Returns ``cls``, so it works as a decorator.
    """
    flatten = lambda obj: ((), obj)
    unflatten = lambda obj, empty_children: obj
    register_pytree_with_keys(cls, flatten, unflatten)
    return cls


# OrderedDict keeps its insertion order (order is part of OrderedDict equality);
# defaultdict sorts its keys like dict and remembers its default_factory.
register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), x[k]) for k in x.keys()), tuple(x.keys())),
    lambda keys, values: collections.OrderedDict(zip(keys, values)),
)


def _flatten_defaultdict_with_keys(d: collections.defaultdict) -> tuple[tuple, tuple]:
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _flatten_defaultdict_with_keys,
    lambda s, values: collections.defaultdict(s[0], zip(s[1], values)),
)


# ---------------------------------------------------------------------------------- Partial


class _HashableCallableShim:
    """Wraps a callable, delegating calls, hashing and equality to it (see Partial)."""

    def __init__(self, fun: Callable):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self) -> str:
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: the bound arguments are its children.

    That lets a function with some arguments bound be passed *into* jit-compiled or
    vmapped functions: the bound arguments are traced like any other leaves, while the
    function itself is static data in the treedef.

    >>> add_one = Partial(lambda x, y: x + y, 1)
    >>> add_one(2)
    3
    >>> tree_leaves(add_one)
    [1]
    """

    def __new__(klass, func, *args, **kw):
        # functools.partial(partial(f, a), b) would merge into partial(f, a, b), making `a`
        # a leaf too. Hiding the inner partial in a shim keeps exactly `b` as the leaves.
        if isinstance(func, functools.partial):
            original_func = func
            func = _HashableCallableShim(original_func)
            out = super().__new__(klass, func, *args, **kw)
            func.func = original_func.func
            func.args = original_func.args
            func.keywords = original_func.keywords
            return out
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda partial_: ((partial_.args, partial_.keywords), partial_.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)
