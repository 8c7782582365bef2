"""Tests for edujax.tree_util: pytrees must behave (and print, and fail) like real JAX's.

Expected strings and error messages below were taken from real JAX 0.10.2. Only pure Python
values are used as leaves, so these tests do not depend on edujax's array module.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import pickle
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edujax import tree_util as tu

# ------------------------------------------------------------------ types used by the tests


class Point:
    """A user type registered with register_pytree_node (no aux data)."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x!r}, {self.y!r})"


tu.register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda aux, ch: Point(*ch))


class Box:
    """A user type with static aux data: `meta` lives in the treedef."""

    def __init__(self, value, meta):
        self.value, self.meta = value, meta

    def __repr__(self):
        return f"Box({self.value!r}, {self.meta!r})"


tu.register_pytree_node(Box, lambda b: ([b.value], b.meta), lambda meta, ch: Box(ch[0], meta))


class Var:
    """A user type with a variable number of children."""

    def __init__(self, *xs):
        self.xs = xs

    def __repr__(self):
        return f"Var{self.xs!r}"


tu.register_pytree_node(Var, lambda v: (v.xs, None), lambda aux, ch: Var(*ch))


@tu.register_pytree_node_class
class Scaled:
    def __init__(self, value, scale):
        self.value, self.scale = value, scale

    def tree_flatten(self):
        return (self.value,), self.scale

    @classmethod
    def tree_unflatten(cls, scale, children):
        return cls(children[0], scale)


@tu.register_pytree_with_keys_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten_with_keys(self):
        return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


class Env:
    """Registered with register_pytree_with_keys: children named by dict keys."""

    def __init__(self, d):
        self.d = d


tu.register_pytree_with_keys(
    Env,
    lambda e: ([(tu.DictKey(k), v) for k, v in e.d.items()], tuple(e.d)),
    lambda keys, children: Env(dict(zip(keys, children))),
)


@tu.register_dataclass
@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    activation: str = dataclasses.field(default="relu", metadata=dict(static=True))


@functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["name"])
class Named:  # not a dataclass: fields given explicitly
    def __init__(self, x, name):
        self.x, self.name = x, name


@tu.register_static
class Mode(str):
    pass


P = collections.namedtuple("P", ["x", "y"])
Q = collections.namedtuple("Q", ["x", "y"])


class Params(NamedTuple):
    w: Any
    b: Any


def error_text(excinfo) -> str:
    return str(excinfo.value)


# ------------------------------------------------------------------ flatten / unflatten


def test_conformance_examples():
    assert tu.tree_leaves([1, "a", None]) == [1, "a"]
    assert tu.tree_leaves((1, (2, 3), ())) == [1, 2, 3]
    assert tu.tree_leaves([1, {"k1": 2, "k2": (3, 4)}, 5]) == [1, 2, 3, 4, 5]
    assert tu.tree_leaves({"a": 2, "b": (2, 3)}) == [2, 2, 3]
    assert tu.tree_leaves({"z": 1, "a": 2, "m": 3}) == [2, 3, 1]
    assert str(tu.tree_structure([1, {"k1": 2, "k2": (3, 4)}, 5])) == (
        "PyTreeDef([*, {'k1': *, 'k2': (*, *)}, *])")


def test_flatten_unflatten_example():
    leaves, treedef = tu.tree_flatten({"b": [1, 2], "a": (3, None)})
    assert leaves == [3, 1, 2]
    assert treedef.num_leaves == 3
    assert repr(treedef) == "PyTreeDef({'a': (*, None), 'b': [*, *]})"
    out = tu.tree_unflatten(treedef, [x * 10 for x in leaves])
    assert out == {"a": (30, None), "b": [10, 20]}
    assert type(out["a"]) is tuple and type(out["b"]) is list


def test_dict_keys_sorted_and_rebuilt_in_sorted_order():
    leaves, treedef = tu.tree_flatten({"z": 1, "a": 2})
    assert leaves == [2, 1]
    rebuilt = tu.tree_unflatten(treedef, leaves)
    assert list(rebuilt) == ["a", "z"]  # JAX rebuilds dicts in sorted-key order
    assert list(tu.tree_map(lambda x: x, {"z": 1, "a": 2})) == ["a", "z"]
    assert tu.tree_leaves({2: "b", 1: "a"}) == ["a", "b"]
    # {'a': 1} and {'a': 1} built in different orders have the same structure
    assert tu.tree_structure({"x": 1, "y": 2}) == tu.tree_structure({"y": 2, "x": 1})


def test_unsortable_dict_keys():
    with pytest.raises(ValueError) as e:
        tu.tree_flatten({1: "a", "x": "b"})
    assert error_text(e) == "Comparator raised exception while sorting pytree dictionary keys."


def test_none_is_an_empty_node():
    leaves, treedef = tu.tree_flatten(None)
    assert leaves == [] and repr(treedef) == "PyTreeDef(None)"
    assert (treedef.num_leaves, treedef.num_nodes) == (0, 1)
    assert tu.tree_unflatten(treedef, []) is None
    assert tu.tree_leaves([1, None, (None, 2)]) == [1, 2]
    assert tu.tree_map(lambda x: x + 1, [1, None]) == [2, None]
    assert tu.tree_structure(None) != tu.tree_structure(1)


def test_leaves_and_empty_containers():
    assert repr(tu.tree_structure(1)) == "PyTreeDef(*)"
    assert tu.tree_flatten("abc") == (["abc"], tu.tree_structure(0))
    for empty, text in [((), "()"), ([], "[]"), ({}, "{}")]:
        leaves, treedef = tu.tree_flatten(empty)
        assert leaves == [] and repr(treedef) == f"PyTreeDef({text})"
        assert tu.tree_unflatten(treedef, []) == empty
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tu.tree_structure([(), [], {}, None])) == "PyTreeDef([(), [], {}, None])"


def test_subclasses_of_builtins_are_leaves():
    class MyList(list):
        pass

    class MyDict(dict):
        pass

    assert tu.tree_leaves(MyList([1, 2])) == [MyList([1, 2])]
    assert tu.tree_leaves(MyDict(a=1)) == [{"a": 1}]


def test_namedtuple_round_trip_keeps_type():
    leaves, treedef = tu.tree_flatten(Params(w=1, b=(2, 3)))
    assert leaves == [1, 2, 3]
    assert repr(treedef) == "PyTreeDef(CustomNode(namedtuple[Params], [*, (*, *)]))"
    out = tu.tree_unflatten(treedef, [10, 20, 30])
    assert type(out) is Params and out == Params(10, (20, 30))
    assert tu.tree_map(lambda v: v * 2, P(1, 2)) == P(2, 4)
    assert type(tu.tree_map(lambda v: v, P(1, 2))) is P
    assert tu.tree_structure(P(1, 2)) != tu.tree_structure(Q(1, 2))
    assert tu.tree_structure(P(1, 2)) != tu.tree_structure((1, 2))


def test_ordered_dict_and_defaultdict():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]  # insertion order, not sorted
    assert repr(treedef) == "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"
    out = tu.tree_unflatten(treedef, leaves)
    assert type(out) is collections.OrderedDict and list(out) == ["b", "a"]

    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]  # sorted like dict
    assert repr(treedef) == (
        "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))")
    out = tu.tree_map(lambda x: x * 10, dd)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert out == {"a": 20, "b": 10}


def test_is_leaf():
    tree = [1, [2, 3], [[4]]]
    is_pair = lambda x: isinstance(x, list) and len(x) == 2 and x != tree
    assert tu.tree_leaves(tree, is_leaf=is_pair) == [1, [2, 3], 4]
    assert tu.tree_leaves(tree, is_leaf=lambda x: True) == [tree]
    assert tu.tree_leaves([1, None], is_leaf=lambda x: x is None) == [1, None]
    assert tu.tree_flatten([1, [2]], is_leaf=lambda x: None)[0] == [1, 2]  # None means no
    with pytest.raises(ValueError) as e:
        tu.tree_flatten([1], is_leaf=lambda x: 1)
    assert error_text(e) == "is_leaf predicate returned a non-boolean value 1; expected a boolean"


def test_unflatten_wrong_number_of_leaves():
    treedef = tu.tree_structure([1, 2, 3])
    with pytest.raises(ValueError) as e:
        tu.tree_unflatten(treedef, [1, 2])
    assert error_text(e) == "Too few leaves for PyTreeDef; expected 3, got 2"
    with pytest.raises(ValueError) as e:
        tu.tree_unflatten(treedef, [1, 2, 3, 4])
    assert error_text(e) == "Too many leaves for PyTreeDef; expected 3."
    assert tu.tree_unflatten(treedef, iter([4, 5, 6])) == [4, 5, 6]  # any iterable works
    assert tu.tree_unflatten(tu.tree_structure(0), ["x"]) == "x"


def test_iterators_as_leaves_warn():
    with pytest.warns(DeprecationWarning, match="Python iterable type 'generator' is treated"):
        tu.tree_flatten([(x for x in [1])])
    with pytest.warns(DeprecationWarning, match="'zip' is treated as a leaf"):
        tu.tree_leaves(zip([1], [2]))


# ------------------------------------------------------------------ PyTreeDef


def test_treedef_attributes():
    treedef = tu.tree_structure([1, (2, 3), {"a": None}])
    assert treedef.num_leaves == 3
    assert treedef.num_nodes == 7
    assert treedef.children() == [tu.tree_structure(0), tu.tree_structure((0, 0)),
                                  tu.tree_structure({"a": None})]
    assert repr(treedef.children()) == (
        "[PyTreeDef(*), PyTreeDef((*, *)), PyTreeDef({'a': None})]")
    assert tu.tree_structure(1).children() == []
    assert treedef.unflatten("xyz") == ["x", ("y", "z"), {"a": None}]


def test_node_data():
    nd = lambda tree: tu.tree_structure(tree).node_data()
    assert nd(1) is None
    assert nd(None) == (type(None), None)
    assert nd((1, 2)) == (tuple, None)
    assert nd([1]) == (list, None)
    assert nd({"b": 1, "a": 2}) == (dict, ["a", "b"])
    assert nd(P(1, 2)) == (P, None)
    assert nd(Box(1, "m")) == (Box, "m")
    assert nd(Layer(1, 2)) == (Layer, ("relu",))


def test_treedef_equality_and_hash():
    a = tu.tree_structure({"x": [1, 2], "y": None})
    b = tu.tree_structure({"y": None, "x": ["p", "q"]})
    assert a == b and hash(a) == hash(b)
    assert {a: "cached"}[b] == "cached"  # usable as a cache key, as jit does
    assert a != tu.tree_structure({"x": [1, 2, 3], "y": None})
    assert tu.tree_structure([1, 2]) != tu.tree_structure((1, 2))
    assert tu.tree_structure({"a": 1}) != tu.tree_structure({"b": 1})
    assert tu.tree_structure(Box(1, "m")) == tu.tree_structure(Box(2, "m"))
    assert tu.tree_structure(Box(1, "m")) != tu.tree_structure(Box(1, "n"))
    # aux data need not be hashable for the treedef to be hashable (as in JAX)
    assert isinstance(hash(tu.tree_structure(Box(1, {"unhashable": [1]}))), int)
    # JAX quirk, mirrored: comparing with a non-treedef is False for == and for !=
    assert (a == 5) is False and (a != 5) is False


def test_treedef_repr_custom_nodes():
    assert repr(tu.tree_structure(Point(1, [2, 3]))) == (
        "PyTreeDef(CustomNode(Point[None], [*, [*, *]]))")
    assert repr(tu.tree_structure(Box(1, "hello"))) == "PyTreeDef(CustomNode(Box[hello], [*]))"
    assert repr(tu.tree_structure([P(1, None), {"b": (2,)}])) == (
        "PyTreeDef([CustomNode(namedtuple[P], [*, None]), {'b': (*,)}])")
    assert repr(tu.tree_structure({"it's": 1})) == "PyTreeDef({\"it's\": *})"
    assert str(tu.tree_structure({1: 2})) == "PyTreeDef({1: *})"


def test_treedef_pickles():
    tree = [1, {"a": (2, None)}, P(3, 4), Point(5, 6)]
    treedef = tu.tree_structure(tree)
    restored = pickle.loads(pickle.dumps(treedef))
    assert restored == treedef and hash(restored) == hash(treedef)
    assert repr(restored) == repr(treedef)
    assert tu.tree_leaves(restored.unflatten(range(6))) == list(range(6))


def test_flatten_up_to():
    treedef = tu.tree_structure((1, 2))
    assert treedef.flatten_up_to(([1, 2], {"x": 3})) == [[1, 2], {"x": 3}]
    cases = [
        (treedef, (1, 2, 3), "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."),
        (treedef, [1, 2], "Expected tuple, got [1, 2]."),
        (tu.tree_structure([1, 2]), [1], "List arity mismatch: 1 != 2; list: [1]."),
        (tu.tree_structure({"a": 1}), {"b": 1},
         "Dict key mismatch; expected keys: ['a']; present keys: ['b']."),
        (tu.tree_structure({"a": 1}), [1], "Expected dict, got [1]."),
        (tu.tree_structure(P(1, 2)), Q(1, 2),
         f"Named tuple type mismatch: expected type: {P!r}, tuple: Q(x=1, y=2)."),
        (tu.tree_structure(P(1, 2)), (1, 2), "Expected named tuple, got (1, 2)."),
        (tu.tree_structure(Box(1, "a")), Box(2, "b"),
         "Mismatch custom node data: 'a' != 'b'; value: Box(2, 'b')."),
        (tu.tree_structure(Box(1, "a")), 3,
         f"Custom node type mismatch: expected type: {Box!r}, value: 3."),
        (tu.tree_structure(Var(1, 2)), Var(1),
         "Custom type arity mismatch: 1 != 2; value: Var(1,)."),
        (tu.tree_structure(Layer(1, 2)), Layer(1, 2, "tanh"),
         "Mismatch custom dataclass node data: ('relu',) != ('tanh',); value: "
         "Layer(w=1, b=2, activation='tanh')."),
        # Like JAX, the rightmost mismatch is reported first.
        (tu.tree_structure([(1, 2), [3]]), [(1,), [3, 4]],
         "List arity mismatch: 2 != 1; list: [3, 4]."),
    ]
    for prefix_def, tree, message in cases:
        with pytest.raises(ValueError) as e:
            prefix_def.flatten_up_to(tree)
        assert error_text(e) == message
    with pytest.raises(ValueError, match=r"^Expected None, got 1\.\n\nIn previous releases"):
        tu.tree_structure(None).flatten_up_to(1)


def test_compose_children_tuple_and_is_leaf():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, {"a": 0}))
    composed = outer.compose(inner)
    assert repr(composed) == "PyTreeDef([(*, {'a': *}), (*, {'a': *})])"
    assert (composed.num_leaves, composed.num_nodes) == (4, 9)
    assert composed == tu.tree_structure([(1, {"a": 2}), (3, {"a": 4})])

    pair = tu.treedef_tuple([tu.tree_structure([1]), tu.tree_structure(None)])
    assert repr(pair) == "PyTreeDef(([*], None))"
    assert pair == tu.tree_structure(([1], None))
    assert tu.treedef_children(pair) == [tu.tree_structure([1]), tu.tree_structure(None)]

    assert [tu.treedef_is_leaf(tu.tree_structure(x)) for x in [1, None, (), [1]]] == [
        True, True, True, False]


# ------------------------------------------------------------------ tree_map and friends


def test_tree_map():
    assert tu.tree_map(lambda x: x * 2, [[1, 2, 3], [1, 2]]) == [[2, 4, 6], [2, 4]]
    assert tu.tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)}) == {
        "x": 11, "y": (22, 33)}
    assert tu.tree_map(lambda a, b, c: a + b + c, [1, 2], [10, 20], [100, 200]) == [111, 222]
    # the first tree may be a prefix: its leaves meet whole subtrees of the others
    assert tu.tree_map(lambda x, y: (x, y), [1, 2], [(3, 4), 5]) == [(1, (3, 4)), (2, 5)]
    assert tu.tree_map(lambda x, y: (x, y), [1], [None]) == [(1, None)]
    assert tu.tree_map(len, [[1, 2], [3]], is_leaf=lambda x: isinstance(x, list) and
                       all(isinstance(i, int) for i in x)) == [2, 1]


@pytest.mark.parametrize("tree, other, message", [
    ((1, 2), (1, 2, 3),
     "pytree structure error: different lengths of tuple at key path\n"
     "    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of "
     "length 2, but the full pytree has a subtree of the same type but of length 3."),
    ([1, 2], (1, 2),
     "pytree structure error: different types at key path\n"
     "    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'list'>\n"
     "but at the same key path the full pytree has a subtree of different type\n"
     "    <class 'tuple'>."),
    ({"a": 1}, {"a": 1, "b": 2},
     "pytree structure error: different numbers of pytree children at key path\n"
     "    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'dict'>\n"
     "with 1 child keys\n"
     "    a\n"
     "but at the same key path the full pytree has a subtree of the same type but with 2 "
     "child keys\n"
     "    a b\n"
     "so the symmetric difference on key sets is\n"
     "    b"),
    ({"a": 1}, {"b": 1},
     "pytree structure error: different pytree metadata at key path\n"
     "    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'dict'>\n"
     "with metadata\n"
     "    ('a',)\n"
     "but at the same key path the full pytree has a subtree of the same type but with "
     "metadata\n"
     "    ('b',)\n"
     "so the diff in the metadata at these pytree nodes is\n"
     "    - ('a',)\n"
     "    ?   ^\n"
     "\n"
     "    + ('b',)\n"
     "    ?   ^\n"),
    ({"a": [1, (2, 3)]}, {"a": [1, (2,)]},
     "pytree structure error: different lengths of tuple at key path\n"
     "    tree_map tree['a'][1]\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of "
     "length 2, but the full pytree has a subtree of the same type but of length 1."),
    ([None], [1],
     "pytree structure error: different types at key path\n"
     "    tree_map tree[0]\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'NoneType'>\n"
     "but at the same key path the full pytree has a subtree of different type\n"
     "    <class 'int'>."),
    (Box(1, "a"), Box(2, "b"),
     "pytree structure error: different pytree metadata at key path\n"
     "    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     f"    {Box!r}\n"
     "with metadata\n"
     "    a\n"
     "but at the same key path the full pytree has a subtree of the same type but with "
     "metadata\n"
     "    b\n"
     "so the diff in the metadata at these pytree nodes is\n"
     "    - a\n"
     "    + b"),
])
def test_tree_map_structure_errors(tree, other, message):
    with pytest.raises(ValueError) as e:
        tu.tree_map(lambda x, y: x, tree, other)
    assert error_text(e) == message


def test_tree_map_errors_from_f_propagate():
    with pytest.raises(ZeroDivisionError):
        tu.tree_map(lambda x: 1 / x, [1, 0])


def test_tree_reduce_and_all():
    assert tu.tree_reduce(lambda a, b: a + b, {"a": [1, 2], "b": 3}) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [], 10) == 10
    assert tu.tree_reduce(lambda a, b: (a, b), [1], None) == (None, 1)  # None is a value
    assert tu.tree_reduce(lambda a, b: a + b, [[1], [2]], [],
                          is_leaf=lambda x: isinstance(x, list) and len(x) == 1) == [1, 2]
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable"):
        tu.tree_reduce(lambda a, b: a + b, [None])
    assert tu.tree_reduce_associative(lambda a, b: (a, b), [1, 2, 3, 4, 5]) == (
        (1, 2), (3, (4, 5)))
    assert tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    assert tu.tree_all([1, True, {"a": "x"}]) is True
    assert tu.tree_all([1, 0]) is False
    assert tu.tree_all([]) is True and tu.tree_all(None) is True


def test_tree_transpose():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    out = tu.tree_transpose(tu.tree_structure({"a": 0, "b": 0}), tu.tree_structure([0, 0, 0]),
                            {"a": [1, 2, 3], "b": [4, 5, 6]})
    assert out == [{"a": 1, "b": 4}, {"a": 2, "b": 5}, {"a": 3, "b": 6}]
    with pytest.raises(TypeError) as e:
        tu.tree_transpose(outer, tu.tree_structure((0, 0, 0)), [(1, 2), (3, 4)])
    assert error_text(e) == (
        "Mismatch\nPyTreeDef([(*, *), (*, *)])\n != \nPyTreeDef([(*, *, *), (*, *, *)])")


def test_all_leaves_and_is_tree_node():
    assert tu.all_leaves([1, "a", 2.0])
    assert not tu.all_leaves([1, [2]])
    assert not tu.all_leaves([None])  # None is a node
    assert not tu.all_leaves([P(1, 2)])
    assert tu.all_leaves([1, (2,)], is_leaf=lambda x: isinstance(x, tuple))
    assert tu.all_leaves(tu.tree_leaves({"a": [1, (2, 3)]}))
    assert [tu.is_tree_node(t) for t in [list, dict, type(None), P, Point, Layer, int]] == [
        True, True, True, True, True, True, False]


def test_tree_broadcast_and_flatten_one_level():
    assert tu.tree_broadcast([1, 2], [(3, 4), {"a": 5, "b": 6}]) == [(1, 1), {"a": 2, "b": 2}]
    with pytest.raises(ValueError, match="^pytree structure error: different lengths of list"):
        tu.tree_broadcast([1, 2], [(3, 4)])
    assert tu.flatten_one_level({"b": [1], "a": 2}) == ((2, [1]), ("a", "b"))
    assert tu.flatten_one_level(P(1, 2)) == ([1, 2], P)
    assert tu.flatten_one_level(None) == ((), None)
    with pytest.raises(ValueError) as e:
        tu.flatten_one_level(1)
    assert error_text(e) == "can't tree-flatten type: <class 'int'>"
    assert tu.flatten_one_level_with_keys([3]) == (((tu.SequenceKey(0), 3),), None)


# ------------------------------------------------------------------ key paths


def test_flatten_with_path_example():
    leaves, treedef = tu.tree_flatten_with_path({"a": [1, 2], "b": {"c": 3}})
    assert [(tu.keystr(k), v) for k, v in leaves] == [
        ("['a'][0]", 1), ("['a'][1]", 2), ("['b']['c']", 3)]
    assert treedef == tu.tree_structure({"a": [1, 2], "b": {"c": 3}})


def test_key_entries_for_every_node_kind():
    leaves = tu.tree_leaves_with_path([P(1, None), {"b": (2,)}, Point(3, 4), Layer(5, 6)])
    assert [k for k, _ in leaves] == [
        (tu.SequenceKey(0), tu.GetAttrKey("x")),
        (tu.SequenceKey(1), tu.DictKey("b"), tu.SequenceKey(0)),
        (tu.SequenceKey(2), tu.FlattenedIndexKey(0)),  # registered without keys
        (tu.SequenceKey(2), tu.FlattenedIndexKey(1)),
        (tu.SequenceKey(3), tu.GetAttrKey("w")),
        (tu.SequenceKey(3), tu.GetAttrKey("b")),
    ]
    assert [v for _, v in leaves] == [1, 2, 3, 4, 5, 6]
    assert tu.tree_flatten_with_path(5) == ([((), 5)], tu.tree_structure(0))
    od = collections.OrderedDict(b=1, a=2)
    assert [tu.keystr(k) for k, _ in tu.tree_leaves_with_path(od)] == ["['b']", "['a']"]


def test_key_classes():
    keys = [tu.SequenceKey(0), tu.DictKey("a"), tu.GetAttrKey("x"), tu.FlattenedIndexKey(3)]
    assert repr(keys) == ("[SequenceKey(idx=0), DictKey(key='a'), GetAttrKey(name='x'), "
                          "FlattenedIndexKey(key=3)]")
    assert [str(k) for k in keys] == ["[0]", "['a']", ".x", "[<flat index 3>]"]
    assert (keys[0].idx, keys[1].key, keys[2].name, keys[3].key) == (0, "a", "x", 3)
    assert tu.SequenceKey(0) == tu.SequenceKey(0) and tu.SequenceKey(0) != tu.SequenceKey(1)
    assert tu.SequenceKey(0) != tu.FlattenedIndexKey(0) and tu.SequenceKey(0) != 0
    assert len({tu.DictKey("a"), tu.DictKey("a"), tu.GetAttrKey("a")}) == 2
    assert pickle.loads(pickle.dumps(keys)) == keys
    match tu.DictKey("k"):  # keys support structural pattern matching, as in JAX
        case tu.DictKey(key=name):
            assert name == "k"


def test_keystr():
    path = (tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"), tu.FlattenedIndexKey(2))
    assert tu.keystr(path) == "['a'][0].x[<flat index 2>]"
    assert tu.keystr(path, simple=True, separator="/") == "a/0/x/2"
    assert tu.keystr(()) == ""
    assert tu.keystr(("a", 1)) == "a1"
    with pytest.raises(TypeError):
        tu.keystr(path, True)  # simple and separator are keyword-only


def test_map_with_path_and_is_leaf_takes_path():
    out = tu.tree_map_with_path(lambda p, x: (tu.keystr(p), x), {"a": [1], "b": 2})
    assert out == {"a": [("['a'][0]", 1)], "b": ("['b']", 2)}
    assert tu.tree_map_with_path(lambda p, x, y: x + y, {"a": [1]}, {"a": [2]}) == {"a": [3]}
    with pytest.raises(ValueError, match=r"tree_map_with_path tree\['a'\]"):
        tu.tree_map_with_path(lambda p, x, y: x + y, {"a": [1]}, {"a": [2, 3]})
    leaves, _ = tu.tree_flatten_with_path({"a": [1, 2]}, is_leaf=lambda p, x: len(p) == 1,
                                          is_leaf_takes_path=True)
    assert leaves == [((tu.DictKey("a"),), [1, 2])]
    leaves, _ = tu.tree_flatten_with_path({"a": [1, 2]}, is_leaf=lambda x: isinstance(x, list))
    assert leaves == [((tu.DictKey("a"),), [1, 2])]


# ------------------------------------------------------------------ registering types


def test_register_pytree_node_point():
    leaves, treedef = tu.tree_flatten([Point(5, 6), 7])
    assert leaves == [5, 6, 7]
    p = tu.tree_map(lambda v: v * 3, Point(1, 2))
    assert type(p) is Point and (p.x, p.y) == (3, 6)
    with pytest.raises(ValueError) as e:
        tu.register_pytree_node(Point, lambda p: ((), None), lambda aux, ch: Point(0, 0))
    assert error_text(e) == (
        f"Duplicate custom PyTreeDef type registration for {Point!r}.")
    with pytest.raises(ValueError, match="^Duplicate custom PyTreeDef type registration for "
                                         "<class 'list'>.$"):
        tu.register_pytree_node(list, lambda x: (x, None), lambda aux, ch: list(ch))


def test_bad_flatten_functions():
    class ReturnsList:
        pass

    class ChildrenNotIterable:
        pass

    tu.register_pytree_node(ReturnsList, lambda x: [1, 2, 3], lambda aux, ch: ReturnsList())
    tu.register_pytree_node(ChildrenNotIterable, lambda x: (5, None),
                            lambda aux, ch: ChildrenNotIterable())
    with pytest.raises(ValueError) as e:
        tu.tree_flatten(ReturnsList())
    assert error_text(e) == ("The to_iterable function for a custom PyTree node should return "
                             "a (children, aux_data) tuple, got [1, 2, 3]")
    with pytest.raises(ValueError) as e:
        tu.tree_flatten(ChildrenNotIterable())
    assert error_text(e) == (
        "The to_iterable function for a custom PyTree node should return a (children, "
        "aux_data) tuple where 'children' is iterable, got (5, None)")


def test_register_pytree_node_class_and_with_keys():
    leaves, treedef = tu.tree_flatten(Scaled(1, 0.5))
    assert leaves == [1] and repr(treedef) == "PyTreeDef(CustomNode(Scaled[0.5], [*]))"
    out = tu.tree_map(lambda x: x + 1, Scaled(1, 0.5))
    assert (out.value, out.scale) == (2, 0.5)

    pair = Pair(1, [2])
    assert tu.tree_leaves(pair) == [1, 2]
    assert [(tu.keystr(k), v) for k, v in tu.tree_leaves_with_path(pair)] == [
        (".a", 1), (".b[0]", 2)]
    assert tu.tree_map(lambda x: -x, pair).b == [-2]

    env = Env({"x": 1, "y": 2})
    assert tu.tree_leaves_with_path(env) == [((tu.DictKey("x"),), 1), ((tu.DictKey("y"),), 2)]
    assert repr(tu.tree_structure(env)) == "PyTreeDef(CustomNode(Env[('x', 'y')], [*, *]))"
    assert tu.tree_map(lambda v: v * 2, env).d == {"x": 2, "y": 4}


def test_register_dataclass_inferred_fields():
    layer = Layer(w=1, b=2)
    leaves, treedef = tu.tree_flatten(layer)
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef(CustomNode(Layer[('relu',)], [*, *]))"
    assert tu.tree_unflatten(treedef, [5, 6]) == Layer(5, 6, "relu")
    assert tu.tree_structure(Layer(1, 2, "tanh")) != treedef
    assert tu.tree_map(lambda x: x * 10, Layer(1, (2, 3), "tanh")) == Layer(10, (20, 30), "tanh")


def test_register_dataclass_explicit_fields():
    leaves, treedef = tu.tree_flatten(Named(1, "m"))
    assert leaves == [1] and repr(treedef) == "PyTreeDef(CustomNode(Named[('m',)], [*]))"
    out = tu.tree_unflatten(treedef, [9])
    assert type(out) is Named and (out.x, out.name) == (9, "m")


def test_register_dataclass_errors():
    @dataclasses.dataclass
    class T:
        a: int
        b: int

    with pytest.raises(TypeError, match="must both be specified when either is specified"):
        tu.register_dataclass(T, data_fields=["a"])
    with pytest.raises(TypeError) as e:
        tu.register_dataclass(int)
    assert error_text(e) == ("register_dataclass: data_fields and meta_fields are required when "
                             "nodetype is not a dataclass. Got nodetype=<class 'int'>.")
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(T, data_fields=["a"], meta_fields=[])
    assert error_text(e) == (
        "data_fields and meta_fields must include all dataclass fields with ``init=True`` and "
        "only them. Missing fields: {'b'}. Add them to drop_fields to suppress this error.")
    with pytest.raises(ValueError, match="must not overlap. Overlapping fields: {'a'}."):
        tu.register_dataclass(T, data_fields=["a", "b"], meta_fields=["a"])
    with pytest.raises(ValueError) as e:
        tu.register_dataclass(Layer)
    assert error_text(e) == (
        f"Duplicate custom dataclass PyTreeDef type registration for {Layer!r}.")
    tu.register_dataclass(T, data_fields=["a"], meta_fields=[], drop_fields=["b"])
    assert repr(tu.tree_structure(T(1, 2))) == "PyTreeDef(CustomNode(T[()], [*]))"


def test_register_static():
    leaves, treedef = tu.tree_flatten([Mode("add"), 1])
    assert leaves == [1]
    assert repr(treedef) == "PyTreeDef([CustomNode(Mode[add], []), *])"
    assert tu.tree_structure(Mode("add")) == tu.tree_structure(Mode("add"))
    assert tu.tree_structure(Mode("add")) != tu.tree_structure(Mode("sub"))
    out = tu.tree_map(lambda x: x, Mode("add"))
    assert type(out) is Mode and out == "add"


def test_partial():
    def f(a, b, c=3):
        return a + b + c

    p = tu.Partial(f, 1, c=4)
    assert isinstance(p, functools.partial) and p(2) == 7
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 4]
    assert repr(treedef).startswith("PyTreeDef(CustomNode(Partial[<function ")
    assert repr(treedef).endswith("], [(*,), {'c': *}]))")
    assert tu.tree_map(lambda x: x * 10, p)(2) == 52
    assert tu.tree_structure(tu.Partial(f, 1)) == tu.tree_structure(tu.Partial(f, 2))
    # a functools.partial inside keeps its own arguments out of the leaves
    nested = tu.Partial(functools.partial(f, 1), 2)
    assert tu.tree_leaves(nested) == [2] and nested() == 6


# ------------------------------------------------------------------ property tests

leaf_values = st.integers(min_value=-1000, max_value=1000)
trees = st.recursive(
    st.one_of(leaf_values, st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text("abcxyz", min_size=1, max_size=3), children, max_size=4),
    ),
    max_leaves=20,
)


def same_tree(a, b) -> bool:
    """Equal values *and* the same container types at every level (== treats 1 == True etc.)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_tree(a[k], b[k]) for k in a)
    return a == b


def follow(tree, path):
    for key in path:
        tree = tree[key.idx] if isinstance(key, tu.SequenceKey) else tree[key.key]
    return tree


@given(trees)
def test_unflatten_inverts_flatten(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert len(leaves) == treedef.num_leaves
    assert all(isinstance(leaf, int) for leaf in leaves)  # None is never a leaf
    assert same_tree(tu.tree_unflatten(treedef, leaves), tree)
    assert tu.tree_structure(tu.tree_unflatten(treedef, leaves)) == treedef


@given(trees)
def test_tree_map_identity_and_structure(tree):
    assert same_tree(tu.tree_map(lambda x: x, tree), tree)
    doubled = tu.tree_map(lambda x, y: x + y, tree, tree)
    assert tu.tree_leaves(doubled) == [2 * x for x in tu.tree_leaves(tree)]
    assert tu.tree_structure(doubled) == tu.tree_structure(tree)
    assert hash(tu.tree_structure(doubled)) == hash(tu.tree_structure(tree))


@given(trees)
def test_paths_lead_to_their_leaves(tree):
    path_leaves, treedef = tu.tree_flatten_with_path(tree)
    assert [leaf for _, leaf in path_leaves] == tu.tree_leaves(tree)
    assert treedef == tu.tree_structure(tree)
    for path, leaf in path_leaves:
        assert follow(tree, path) == leaf


@given(trees)
def test_treedef_children_and_pickle(tree):
    treedef = tu.tree_structure(tree)
    assert treedef.num_nodes == 1 + sum(child.num_nodes for child in treedef.children())
    assert treedef.num_leaves == sum(child.num_leaves for child in treedef.children()) + (
        1 if tu.treedef_is_leaf(treedef) and not isinstance(tree, (list, tuple, dict))
        and tree is not None else 0)
    assert pickle.loads(pickle.dumps(treedef)) == treedef
    assert treedef.flatten_up_to(tree) == tu.tree_leaves(tree)
