"""What every diagram builder shares: the :class:`Diagram` value and two name helpers.

A leaf module: the package (:func:`infra.reports.diagrams.build_diagrams`) imports the
builders, and the builders import these from here, not from the package (issue 32,
item 4: no import cycle).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Diagram:
    name: str  # file stem, e.g. "scaleup_ultraserver"
    title: str
    source: str  # DOT text


def natural(text: str) -> list:
    """Sort key putting ``r0.t2`` before ``r0.t10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def file_stem(text: str) -> str:
    """A safe, stable file stem from a label."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_").lower()
