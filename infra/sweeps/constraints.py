"""Sweep constraints: expressions over parameter names, run by a small interpreter.

A constraint is parsed with :mod:`ast` and only a whitelist of nodes is allowed
(comparisons, ``and``/``or``/``not``, ``in``, ``+ - * / %``, tuples and lists of
constants): never ``eval``. Every cost is bounded before it is paid (issue 31, E2, C4):

- the text is at most :data:`MAX_CHARS` characters and its syntax tree at most
  :data:`MAX_DEPTH` levels deep (``not not ... True`` or ``1+1+...+1`` with thousands of
  terms are refused as errors of the grid, never a ``RecursionError``);
- arithmetic is between numbers only, except ``+`` joining two strings or two tuples,
  whose result is at most :data:`MAX_RESULT` long; ``'x' * 3000000000`` and
  ``'%0999999999d' % 1`` are refused before anything is allocated;
- an integer result is at most :data:`MAX_INT_DIGITS` digits.

Examples
--------
>>> tree = compile_constraint("not (a == 3 and b > 1.25)", {"a", "b"})
>>> check(tree, {"a": 3, "b": 1.3}, "not (a == 3 and b > 1.25)")
False
>>> check(compile_constraint("t + '-x' == 'gb-x'", {"t"}), {"t": "gb"}, "")
True
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from infra.errors import did_you_mean
from infra.sweeps.paths import SweepError

MAX_CHARS = 1_000  # characters of one constraint
MAX_DEPTH = 40  # levels of its syntax tree
MAX_RESULT = 10_000  # characters (or items) of a string or tuple it builds
MAX_INT_DIGITS = 100  # digits of an integer it computes

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
        ast.NotIn: lambda a, b: a not in b}
_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
            ast.Compare, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.Tuple, ast.List,
            *_BIN, *_CMP)
_HINT = "use comparisons, and/or/not, in, + - * / % between numbers"


class _Refused(Exception):
    """An operation the interpreter does not run (the message says which)."""


def _short(text: str) -> str:
    return repr(text[:80]) + (f"... ({len(text):,} characters)" if len(text) > 80 else "")


def _depth(tree: ast.AST) -> int:
    """Depth of the tree, without recursion (a deep tree is what is being guarded)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest


def compile_constraint(text: Any, names: set[str], index: int | None = None) -> ast.Expression:
    """The checked syntax tree of one constraint; anything outside the grammar or the
    bounds is a :class:`SweepError` (at the grid's ``constraints[index]``)."""
    where = {"path": ("constraints",) + (() if index is None else (index,))}
    if not isinstance(text, str):
        raise SweepError(f"a constraint must be a string, got {type(text).__name__}", **where,
                         hint="quote it: - \"a == 1\"")
    if len(text) > MAX_CHARS:
        raise SweepError(f"constraint {_short(text)} is over {MAX_CHARS:,} characters", **where,
                         hint="split it into several constraints (each must hold)")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise SweepError(f"constraint {_short(text)} is not an expression: {exc.msg}", **where,
                         hint="e.g. \"not (tray == 'x' and oversub == 2)\"") from None
    except (RecursionError, MemoryError):
        raise SweepError(f"constraint {_short(text)} nests too deeply to parse", **where,
                         hint=f"at most {MAX_DEPTH} levels; split it") from None
    except ValueError as exc:  # e.g. a NUL character
        raise SweepError(f"constraint {_short(text)} cannot be parsed: {str(exc)[:80]}",
                         **where, hint="e.g. \"not (tray == 'x' and oversub == 2)\"") from None
    if _depth(tree) > MAX_DEPTH:
        raise SweepError(f"constraint {_short(text)} nests over {MAX_DEPTH} levels", **where,
                         hint="split it into several constraints (each must hold)")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise SweepError(f"constraint {_short(text)} uses {type(node).__name__}, which "
                             "constraints do not allow", **where, hint=_HINT)
        if isinstance(node, ast.Name) and node.id not in names:
            raise SweepError(f"constraint {_short(text)} names {node.id!r}, not a parameter",
                             **where, hint=did_you_mean(node.id, sorted(names)))
    return tree


def check(tree: ast.Expression, values: dict[str, Any], text: str,
          index: int | None = None) -> bool:
    """Whether the scenario's ``values`` pass; a constraint that cannot be evaluated on
    them (types that do not compare, a refused operation) is a :class:`SweepError`."""
    try:
        return bool(_eval(tree, values))
    except (TypeError, ZeroDivisionError, ArithmeticError, _Refused) as exc:
        shown = {k: (v if not isinstance(v, (dict, list)) else type(v).__name__)
                 for k, v in values.items()}
        hint = (_HINT if isinstance(exc, _Refused)
                else "compare values of the same type (quote strings)")
        raise SweepError(f"constraint {_short(text)} fails on {_short(str(shown))}: "
                         f"{str(exc)[:200]}", hint=hint,
                         path=("constraints",) + (() if index is None else (index,))) from None


def _number(v: Any) -> bool:
    return isinstance(v, (int, float))  # bool is an int: True + 1 is harmless


def _binop(op: ast.operator, a: Any, b: Any) -> Any:
    if _number(a) and _number(b):
        if isinstance(a, int) and isinstance(b, int) and isinstance(op, ast.Mult) and \
                a.bit_length() + b.bit_length() > MAX_INT_DIGITS * 3.33:
            raise _Refused(f"an integer of over {MAX_INT_DIGITS} digits")
        out = _BIN[type(op)](a, b)
        if isinstance(out, int) and out.bit_length() > MAX_INT_DIGITS * 3.33:
            raise _Refused(f"an integer of over {MAX_INT_DIGITS} digits")
        return out
    if isinstance(op, ast.Add) and type(a) is type(b) and isinstance(a, (str, tuple)):
        if len(a) + len(b) > MAX_RESULT:
            raise _Refused(f"a result of over {MAX_RESULT:,} characters")
        return a + b
    kind = type(op).__name__
    raise _Refused(f"{kind} of {type(a).__name__} and {type(b).__name__} "
                   "(arithmetic is between numbers; + also joins two strings)")


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not v
        if not _number(v):
            raise _Refused(f"minus of {type(v).__name__}")
        return -v
    if isinstance(node, ast.BoolOp):
        vals = (_eval(v, env) for v in node.values)
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.BinOp):
        return _binop(node.op, _eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    raise SweepError(f"unsupported constraint element {type(node).__name__}")  # pragma: no cover
