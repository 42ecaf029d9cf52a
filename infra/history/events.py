"""``infra history events import``: incidents and RMAs from CSV or a NetBox change log.

CSV columns (header required, any order)::

    time,host,asset,component,event,note
    2025-03-04T02:10:00Z,r001n03,GPU-1b2c...,hbm,interruption,XID 48 double-bit ECC

``time`` ISO 8601 (no zone: UTC); ``component`` a rate kind of ``catalogs/rates``
(gpu, hbm, software, compute_tray, nic, ...); ``event`` one of failure, interruption,
rma, replaced, repaired; ``host``, ``asset`` and ``note`` may be empty.

NetBox (``/api/extras/object-changes/`` or ``/api/core/object-changes/`` saved as JSON,
a list or ``{"results": [...]}``): an update of a module or inventory item whose serial
changed is a ``replaced`` event (NetBox keeps the new serial only, its issue #19003); the
component kind is read from the object's name (GPU, HBM, NIC/HCA/ConnectX, CPU, PSU ...).
Other entries are counted as skipped, with the reason.

Every row is checked before anything is written: a bad row is reported with its line
and the import writes nothing. A row already in the database (same time, host, asset,
component, event and note) is not added again, so importing a file twice adds nothing.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from infra.history.db import HistoryError, to_ts
from infra.history.schema import events

EVENTS = ("failure", "interruption", "rma", "replaced", "repaired")
COLUMNS = ("time", "host", "asset", "component", "event", "note")
MAX_SHOWN = 10  # bad rows listed in one message
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class EventRow:
    ts: int
    host: str | None
    asset: str | None
    component: str
    event: str
    note: str
    source: str

    @property
    def digest(self) -> str:
        key = "\x1f".join([str(self.ts), self.host or "", self.asset or "", self.component,
                           self.event, self.note])
        return hashlib.sha256(key.encode()).hexdigest()


@dataclass
class ImportResult:
    file: str
    read: int
    added: int
    already: int
    skipped: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        return {"file": self.file, "rows_read": self.read, "added": self.added,
                "already_in_database": self.already, "skipped": dict(self.skipped)}


def _kinds() -> tuple[str, ...]:
    from infra.models.rates import RATE_KINDS

    return RATE_KINDS


def read_events(file: Path | str, fmt: str | None = None) -> tuple[list[EventRow], Counter]:
    """Every row of ``file`` (CSV, or NetBox JSON by ``fmt`` or a ``.json`` suffix), and
    what was skipped (NetBox entries that are not part replacements) by reason."""
    path = Path(file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise HistoryError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    if len(data) > MAX_BYTES:
        raise HistoryError(f"{len(data):,} bytes is too large (limit {MAX_BYTES:,})", file=str(path),
                           hint="split the file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HistoryError(f"not UTF-8 text (byte {exc.start})", file=str(path),
                           hint="save the file as UTF-8 CSV or JSON") from None
    fmt = fmt or ("netbox" if path.suffix.lower() == ".json" else "csv")
    if fmt == "netbox":
        return read_netbox(text, str(path))
    return read_csv(text, str(path)), Counter()


def read_csv(text: str, file: str) -> list[EventRow]:
    kinds = _kinds()
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise HistoryError("empty file: expected a header line", file=file, line=1,
                           hint="first line: " + ",".join(COLUMNS)) from None
    except csv.Error as exc:
        raise HistoryError(f"not CSV: {exc}", file=file, line=1) from None
    names = [h.strip().lower() for h in header]
    missing = [c for c in COLUMNS if c not in names]
    unknown = [h for h in names if h not in COLUMNS]
    if missing or unknown or len(set(names)) != len(names):
        what = "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                     f"unknown {', '.join(map(repr, unknown))}" if unknown else "",
                                     "a column twice" if len(set(names)) != len(names) else "")
                         if x)
        raise HistoryError(f"header: {what}", file=file, line=1,
                           hint="first line: " + ",".join(COLUMNS))
    col = {n: i for i, n in enumerate(names)}
    out: list[EventRow] = []
    bad: list[str] = []
    first_bad = None
    try:
        for fields in reader:
            line = reader.line_num
            if not any(f.strip() for f in fields):
                continue
            why = _check(fields, col, kinds)
            if isinstance(why, str):
                bad.append(f"line {line}: {why}")
                first_bad = first_bad or line
                continue
            ts, host, asset, comp, ev, note = why
            out.append(EventRow(ts, host, asset, comp, ev, note, f"{file}:{line}"))
    except csv.Error as exc:
        bad.append(f"line {reader.line_num}: malformed CSV ({exc})")
        first_bad = first_bad or reader.line_num
    if bad:
        shown = "; ".join(bad[:MAX_SHOWN]) + (f"; ... {len(bad) - MAX_SHOWN} more" if len(bad) > MAX_SHOWN else "")
        raise HistoryError(f"{len(bad)} bad row(s), nothing imported: {shown}", file=file,
                           line=first_bad,
                           hint="fix them and import the file again; rows already in the "
                                "database are never added twice")
    if not out:
        raise HistoryError("no event rows after the header", file=file, line=2)
    return out


def _check(fields: list[str], col: dict[str, int], kinds) -> tuple | str:
    from infra.errors import did_you_mean

    if len(fields) != len(col):
        return f"{len(fields)} fields, the header has {len(col)} (a comma inside a note needs quotes)"
    get = {n: fields[i].strip() for n, i in col.items()}
    try:
        ts = to_ts(get["time"], what="time")
    except HistoryError as exc:
        return f"{exc.message} ({exc.hint})"
    comp, ev = get["component"].lower(), get["event"].lower()
    if comp not in kinds:
        return (f"component {get['component']!r} is not a failure-rate kind "
                f"({did_you_mean(comp, kinds)})")
    if ev not in EVENTS:
        return f"event {get['event']!r} is not one of {', '.join(EVENTS)}"
    return ts, get["host"] or None, get["asset"] or None, comp, ev, get["note"]


# NetBox object-change entries: which names mean which rate kind (first match wins)
NETBOX_KINDS = (("hbm", "hbm"), ("gpu", "gpu"), ("nvswitch", "nvlink_switch_chip"),
                ("connectx", "nic"), ("hca", "nic"), ("nic", "nic"), ("cpu", "cpu"),
                ("psu", "power_shelf"), ("power", "power_shelf"))
NETBOX_TYPES = ("dcim.module", "dcim.inventoryitem")


def read_netbox(text: str, file: str) -> tuple[list[EventRow], Counter]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HistoryError(f"malformed JSON: {exc.msg}", file=file, line=exc.lineno,
                           hint="save the NetBox API's object-changes response as it is") from None
    entries = doc.get("results") if isinstance(doc, dict) else doc
    if not isinstance(entries, list):
        raise HistoryError("expected a list of change-log entries or {\"results\": [...]}",
                           file=file, line=1)
    out: list[EventRow] = []
    skipped: Counter = Counter()
    bad: list[str] = []
    for i, ent in enumerate(entries):
        if not isinstance(ent, dict):
            bad.append(f"results[{i}]: not an object")
            continue
        ctype = ent.get("changed_object_type")
        action = ent.get("action")
        action = action.get("value") if isinstance(action, dict) else action
        if ctype not in NETBOX_TYPES:
            skipped[f"not a module or inventory item ({ctype})"] += 1
            continue
        pre, post = ent.get("prechange_data") or {}, ent.get("postchange_data") or {}
        old, new = pre.get("serial"), post.get("serial")
        if action != "update" or not old or not new or old == new:
            skipped[f"{action} without a serial change"] += 1
            continue
        name = " ".join(str(x) for x in (post.get("name"), ent.get("object_repr")) if x).lower()
        kind = next((k for word, k in NETBOX_KINDS if word in name), None)
        if kind is None:
            skipped["serial change of a part whose name names no rate kind"] += 1
            continue
        try:
            ts = to_ts(str(ent.get("time")), what="time")
        except HistoryError as exc:
            bad.append(f"results[{i}].time: {exc.message}")
            continue
        device = post.get("device")
        note = (f"serial {old} -> {new} ({ent.get('object_repr') or name}; NetBox change "
                f"{ent.get('id')}{f', device {device}' if device is not None else ''})")
        out.append(EventRow(ts, None, str(new), kind, "replaced", note, f"{file}:results[{i}]"))
    if bad:
        raise HistoryError(f"{len(bad)} bad entr(y/ies), nothing imported: "
                           + "; ".join(bad[:MAX_SHOWN]), file=file)
    return out, skipped


def insert_events(conn, rows: list[EventRow], file: str,
                  skipped: Counter | None = None) -> ImportResult:
    """Add the rows not yet in the database (one transaction: the caller's)."""
    unique = {r.digest: r for r in rows}
    have: set[str] = set()
    keys = list(unique)
    for i in range(0, len(keys), 500):
        have |= set(conn.execute(select(events.c.digest)
                                 .where(events.c.digest.in_(keys[i:i + 500]))).scalars())
    new = [r for d, r in unique.items() if d not in have]
    if new:
        conn.execute(events.insert(), [
            {"ts": r.ts, "host": r.host, "asset": r.asset, "component": r.component,
             "event": r.event, "note": r.note, "source": r.source, "digest": r.digest}
            for r in new])
    res = ImportResult(file, len(rows), len(new), len(unique) - len(new), Counter(skipped or {}))
    if len(unique) < len(rows):
        res.skipped["repeated within the file"] += len(rows) - len(unique)
    return res
