"""Normalise options to a target capacity: ``"1 EFLOPS bf16"``, ``"50 MW"``, ``"40 MW IT"``.

Each option is sized in whole *building blocks*: one GPU for a chip, one tray for a
tray, and for a design one instance of its single ``build`` entry (one NVL72 rack, one
UltraServer pod, one scalable unit), or the whole design when it builds several kinds.
Blocks needed = ceil(target / block capacity); every figure of the block (GPUs, racks,
power, capex, TCO) is multiplied by that count. Sizing a design to its own capacity
therefore gives back the design.

Assumptions
-----------
- ``MW`` alone means facility MW (IT x PUE): the figure a site's utility feed limits.
  ``MW IT`` sizes on IT power.
- FLOPS targets are peak dense figures of the named precision (default bf16).
- Shared per-pod items (cooling units sized by heat) scale linearly with blocks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from infra.errors import CompareError, describe_value
from infra.models.base import MAX_GPUS
from infra.models.parts import PRECISIONS

FLOPS_UNITS = {"tflops": 1e-3, "pflops": 1.0, "eflops": 1e3}  # -> PFLOPS
POWER_UNITS = {"kw": 1e-3, "mw": 1.0, "gw": 1e3}  # -> MW
EXAMPLES = "e.g. --target '1 EFLOPS bf16', '500 PFLOPS fp8', '50 MW' or '40 MW IT'"
_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]+)\s*([a-z0-9_]+)?\s*$")
EPS = 1e-9


@dataclass(frozen=True)
class Target:
    """A capacity target: ``quantity`` is ``dense_pflops``, ``facility_mw`` or ``it_mw``."""

    text: str
    quantity: str
    value: float  # PFLOPS or MW
    precision: str | None = None

    @property
    def label(self) -> str:
        if self.quantity == "dense_pflops":
            return f"{self.value:g} PFLOPS dense {self.precision}"
        return f"{self.value:g} MW {'IT' if self.quantity == 'it_mw' else 'facility'}"


def parse_target(text: str) -> Target:
    """Parse a target string.

    Examples
    --------
    >>> parse_target("1 EFLOPS bf16")
    Target(text='1 EFLOPS bf16', quantity='dense_pflops', value=1000.0, precision='bf16')
    >>> parse_target("50 MW").quantity
    'facility_mw'
    """
    m = _RE.match(text.lower())
    if not m:
        raise CompareError(f"cannot read target {text!r}", hint=EXAMPLES)
    value, unit, extra = float(m.group(1)), m.group(2), m.group(3)
    if not math.isfinite(value):
        raise CompareError(f"target {describe_value(text)} is not a finite number", hint=EXAMPLES)
    if value <= 0:
        raise CompareError(f"target {text!r} must be positive", hint=EXAMPLES)
    if unit in FLOPS_UNITS:
        prec = extra or "bf16"
        if prec not in PRECISIONS or prec == "int8":
            raise CompareError(f"unknown precision {prec!r} in target {text!r}",
                               hint="one of " + ", ".join(p for p in PRECISIONS if p != "int8"))
        return Target(text, "dense_pflops", value * FLOPS_UNITS[unit], prec)
    if unit in POWER_UNITS:
        if extra not in (None, "it", "facility"):
            raise CompareError(f"cannot read {extra!r} in target {text!r}",
                               hint="power targets are '<n> MW' (facility) or '<n> MW IT'")
        return Target(text, "it_mw" if extra == "it" else "facility_mw",
                      value * POWER_UNITS[unit])
    raise CompareError(f"unknown unit {unit!r} in target {text!r}", hint=EXAMPLES)


@dataclass(frozen=True)
class Block:
    """One building block of an option and how many the option as given builds."""

    name: str
    built: int  # blocks in the option as given (1 for a chip or a tray)
    gpus: float
    racks: float | None
    it_mw: float
    facility_mw: float
    dense_pflops: dict[str, float | None]
    capex_usd: float | None
    tco_usd: float | None


@dataclass(frozen=True)
class Sizing:
    target: Target
    block: str
    blocks: int
    gpus: float
    racks: float | None
    it_mw: float
    facility_mw: float
    dense_pflops: float | None
    capex_usd: float | None
    tco_usd: float | None
    note: str = ""


def capacity(block: Block, target: Target) -> float | None:
    if target.quantity == "dense_pflops":
        return block.dense_pflops.get(target.precision)
    return block.it_mw if target.quantity == "it_mw" else block.facility_mw


def size_to(block: Block, target: Target) -> Sizing:
    """Blocks needed to reach ``target`` and the figures of that many blocks.

    Power targets count blocks that fit *within* the target (floor); FLOPS targets
    count blocks that *reach* it (ceil).
    """
    cap = capacity(block, target)
    if not cap:
        return Sizing(target, block.name, 0, 0, None, 0, 0, None, None, None,
                      f"{block.name}: no {target.label.split(' ', 1)[1]} figure; not sized")
    ratio = target.value / cap
    if not math.isfinite(ratio) or ratio * max(block.gpus, 1) > MAX_GPUS:
        raise CompareError(f"target {describe_value(target.text)} needs more than {MAX_GPUS:,} "
                           f"GPUs of {block.name}: beyond the size this tool supports",
                           hint="give a smaller target")
    n = math.ceil(ratio - EPS) if target.quantity == "dense_pflops" else math.floor(ratio + EPS)

    def x(v: float | None) -> float | None:
        return None if v is None else v * n

    pf = block.dense_pflops.get(target.precision or "bf16")
    return Sizing(target, block.name, n, block.gpus * n, x(block.racks), block.it_mw * n,
                  block.facility_mw * n, x(pf), x(block.capex_usd), x(block.tco_usd),
                  "" if n else f"one {block.name} exceeds the target")
