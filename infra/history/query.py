"""Point-in-time and per-part questions: ``infra history at`` and ``infra history asset``.

``at``: the placements whose interval holds the instant (``since_ts <= t < until_ts``),
narrowed by rack or host through their indexes. ``asset``: every placement of one part
(where and when), its change records and the events filed against it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select

from infra.history.db import iso
from infra.history.schema import changes, events, placements, snapshots


@dataclass
class AtResult:
    at_ts: int
    rows: list[dict]
    first_ts: int | None  # the first snapshot's time (None: nothing recorded)
    last_seen_ts: int | None

    def note(self) -> str | None:
        if self.first_ts is None:
            return "nothing recorded yet"
        if self.at_ts < self.first_ts:
            return f"before the first snapshot ({iso(self.first_ts)}): nothing known"
        if self.last_seen_ts is not None and self.at_ts > self.last_seen_ts:
            return f"after the last capture ({iso(self.last_seen_ts)}): the state as last seen"
        return None

    def as_dict(self) -> dict:
        return {"at": iso(self.at_ts), "note": self.note(), "parts": self.rows}


_iso = functools.lru_cache(maxsize=4096)(iso)  # placements share their snapshot times
_loads = json.JSONDecoder().decode


_ATTR_KEYS: dict[str, str] = {}  # attribute name -> its column, made once


def _row(r) -> dict:
    """One placement row as a dict (``r``: the query's columns as a plain tuple, unpacked
    once: attribute access on a SQLAlchemy Row costs more than the rest of the row)."""
    kind, asset, host, rack, slot, text, since_ts, until_ts = r
    row = {"kind": kind, "asset": asset, "host": host, "rack": rack, "slot": slot,
           "since": _iso(since_ts), "until": _iso(until_ts)}
    attrs = _loads(text)
    keys = _ATTR_KEYS
    if "{" in text[1:]:  # a nested object: written back as sorted JSON text
        attrs = {k: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v
                 for k, v in attrs.items()}
    for k, v in attrs.items():
        col = keys.get(k)
        if col is None:
            col = keys[k] = "attr." + k
        row[col] = v
    return row


def installed_at(conn, at_ts: int, *, rack: str | None = None, host: str | None = None,
                 kind: str | None = None) -> AtResult:
    """What was installed at ``at_ts`` (in ``rack`` / on ``host`` / of ``kind``)."""
    p = placements.c
    cond = [p.since_ts <= at_ts, or_(p.until_ts.is_(None), p.until_ts > at_ts)]
    if rack is not None:
        cond.append(p.rack == rack)
    if host is not None:
        cond.append(p.host == host)
    if kind is not None:
        cond.append(p.kind == kind)
    q = (select(p.kind, p.asset, p.host, p.rack, p.slot, p.attrs, p.since_ts, p.until_ts)
         .where(and_(*cond)))
    rows = [_row(r) for r in conn.execute(q)]  # a Row unpacks as a tuple
    rows.sort(key=lambda r: (_kind_order(r["kind"]), r["rack"] or "", r["host"] or "",
                             _natural(r["slot"])))
    first, last = conn.execute(select(func.min(snapshots.c.taken_ts),
                                      func.max(snapshots.c.seen_until_ts))).one()
    return AtResult(at_ts, rows, first, last)


def _kind_order(kind: str) -> int:
    order = ("host", "gpu", "nic", "switch", "link")
    return order.index(kind) if kind in order else len(order)


@functools.lru_cache(maxsize=65536)  # slot names repeat across hosts ("gpu module 3")
def _natural(text: str) -> tuple:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text or ""))


@dataclass
class AssetLife:
    asset: str
    placements: list[dict]
    changes: list[dict]
    events: list[dict]

    def as_dict(self) -> dict:
        return {"asset": self.asset, "placements": self.placements, "changes": self.changes,
                "events": self.events}

    def timeline(self) -> list[dict]:
        """Changes and events in one list, by time."""
        rows = [{"time": c["time"], "what": c["change"], "host": c["host"], "slot": c["slot"],
                 "detail": c["detail"]} for c in self.changes]
        rows += [{"time": e["time"], "what": e["event"], "host": e["host"],
                  "slot": e["component"], "detail": e["note"]} for e in self.events]
        return sorted(rows, key=lambda r: r["time"])


def asset_life(conn, asset: str) -> AssetLife:
    """Every place ``asset`` was, its change records (also those where it was swapped
    out) and the events filed against it."""
    p, c, e = placements.c, changes.c, events.c
    pl = [{"kind": r.kind, "host": r.host, "rack": r.rack, "slot": r.slot,
           "since": iso(r.since_ts), "until": iso(r.until_ts), "attrs": json.loads(r.attrs)}
          for r in conn.execute(select(p.kind, p.host, p.rack, p.slot, p.since_ts, p.until_ts,
                                       p.attrs).where(p.asset == asset).order_by(p.since_ts))]
    ch = []
    for r in conn.execute(select(c.ts, c.change, c.kind, c.asset, c.host, c.slot, c.before, c.after)
                          .where(or_(c.asset == asset, c.other == asset)).order_by(c.ts, c.id)):
        before = json.loads(r.before) if r.before else None
        after = json.loads(r.after) if r.after else None
        ch.append({"time": iso(r.ts), "change": r.change, "kind": r.kind, "host": r.host,
                   "slot": r.slot, "detail": _detail(r.change, asset, before, after)})
    ev = [{"time": iso(r.ts), "event": r.event, "component": r.component, "host": r.host,
           "note": r.note, "source": r.source}
          for r in conn.execute(select(e.ts, e.event, e.component, e.host, e.note, e.source)
                                .where(e.asset == asset).order_by(e.ts, e.id))]
    return AssetLife(asset, pl, ch, ev)


def _detail(change: str, asset: str, before: dict | None, after: dict | None) -> str:
    if change == "swap":
        if before and before["asset"] == asset:
            return f"swapped out for {after['asset']}"
        return f"swapped in for {before['asset']}" if before else "swapped in"
    if change == "move" and before and after:
        return f"from {before['host'] or '-'} {before['slot']} to {after['host'] or '-'} {after['slot']}"
    if change == "update" and before and after:
        diff = sorted(k for k in set(before["attrs"]) | set(after["attrs"])
                      if before["attrs"].get(k) != after["attrs"].get(k))
        return ", ".join(f"{k}: {before['attrs'].get(k)} -> {after['attrs'].get(k)}" for k in diff)
    if change == "install":
        return f"installed at {after['host'] or '-'} {after['slot']}" if after else "installed"
    return f"removed from {before['host'] or '-'} {before['slot']}" if before else "removed"
