"""Design-rule findings: a design that is well formed but breaks a rule (power supply short
of the load under its stated redundancy, a rack over its rating, cooling units short of the
heat they must remove) is still analysed in full; the violation is a :class:`Finding`
carried in every report (terminal first, JSON ``findings``) and the CLI exits 1.

Malformed input stays an error (exit 2): a finding is only raised where every figure can
still be computed.

Examples
--------
>>> f = Finding("power_supply", "rack layout 'r' draws 141.5 kW IT, its supply 132 kW",
...             file="d.yaml", path="racks.r.contents", line=3, hint="add power shelves")
>>> str(f)
"d.yaml:3: racks.r.contents: rack layout 'r' draws 141.5 kW IT, its supply 132 kW (add power shelves)"
>>> f.as_dict()["kind"]
'power_supply'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from infra.errors import LOCATE, format_path, locate_line

KINDS = ("power_supply", "rack_rating", "cooling_capacity", "cooling_redundancy", "rack_load")


@dataclass(frozen=True)
class Finding:
    kind: str  # one of KINDS
    message: str
    file: str | None = None
    path: str | None = None
    line: int | None = None
    hint: str | None = None

    @classmethod
    def at(cls, kind: str, message: str, *, file=None, path: Sequence | str | None = None,
           line=None, hint=None) -> Finding:
        """``line=LOCATE`` (with a file and a path sequence): the line of the path in the
        file, looked up once here (findings are made only for broken rules)."""
        if line is LOCATE:
            line = locate_line(file, path)
        p = path if isinstance(path, str) or path is None else format_path(path)
        return cls(kind, message, None if file is None else str(file), p, line, hint)

    def __str__(self) -> str:
        where = (self.file or "") + (f":{self.line}" if self.file and self.line else "")
        if self.path:
            where = f"{where}: {self.path}" if where else self.path
        text = f"{where}: {self.message}" if where else self.message
        return text + (f" ({self.hint})" if self.hint else "")

    def as_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "file": self.file,
                "path": self.path, "line": self.line, "hint": self.hint, "text": str(self)}
