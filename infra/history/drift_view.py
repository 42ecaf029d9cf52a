"""``infra history drift``: how the installed fleet moved from the design over time.

One row per snapshot, the state at its time against the design's compute trays (named by
the host pattern): design hosts present and missing, hosts the design does not name,
GPUs installed against the design's count, hosts short of GPUs, and how many driver and
VBIOS versions and GPU products the fleet runs (1 each is a uniform fleet), with the
change records the snapshot brought.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import and_, or_, select

from infra.history.db import iso
from infra.history.schema import changes, placements, snapshots


@dataclass
class Drift:
    design: str
    design_hosts: int
    design_gpus: int
    rows: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"design": self.design, "design_hosts": self.design_hosts,
                "design_gpus": self.design_gpus, "snapshots": self.rows}


def fleet_drift(conn, expected: dict[str, dict], design: str) -> Drift:
    """``expected``: :func:`infra.history.state.design_map` of the design."""
    want_gpus = {h: int((d.get("parts") or {}).get("gpu", 0)) for h, d in expected.items()}
    out = Drift(design, len(expected), sum(want_gpus.values()))
    snaps = conn.execute(select(snapshots.c.id, snapshots.c.taken_ts, snapshots.c.seen_until_ts)
                         .order_by(snapshots.c.taken_ts, snapshots.c.id)).all()
    p = placements.c
    for s in snaps:
        t = s.taken_ts
        live = and_(p.since_ts <= t, or_(p.until_ts.is_(None), p.until_ts > t))
        hosts: dict[str, dict] = {}
        gpus: Counter = Counter()
        products: Counter = Counter()
        vbios: Counter = Counter()
        for kind, host, attrs in conn.execute(select(p.kind, p.host, p.attrs)
                                              .where(live, p.kind.in_(("host", "gpu")))):
            a = json.loads(attrs)
            if kind == "host":
                hosts[host] = a
            else:
                gpus[host] += 1
                products[a.get("product") or "?"] += 1
                if a.get("vbios"):
                    vbios[a["vbios"]] += 1
        mapped = [h for h in hosts if h in expected]
        short = [h for h in mapped if gpus[h] < want_gpus[h]]
        drivers = Counter(a.get("driver") or "?" for a in hosts.values())
        kinds = Counter(dict(conn.execute(select(changes.c.change, _count())
                                          .where(changes.c.snapshot_id == s.id)
                                          .group_by(changes.c.change)).all()))
        out.rows.append({
            "snapshot": s.id, "time": iso(t), "seen_until": iso(s.seen_until_ts),
            "design_hosts_present": len(mapped),
            "design_hosts_missing": len(expected) - len(mapped),
            "hosts_not_in_design": len(hosts) - len(mapped),
            "gpus_installed": sum(gpus[h] for h in mapped),
            "gpus_designed": out.design_gpus,
            "hosts_short_of_gpus": len(short),
            "gpu_products": len(products), "driver_versions": len(drivers),
            "vbios_versions": len(vbios),
            "most_common_driver": drivers.most_common(1)[0][0] if drivers else None,
            "changes": ", ".join(f"{n} {c}" for c, n in sorted(kinds.items())),
            "short_hosts": ", ".join(sorted(short)[:8]) + (" ..." if len(short) > 8 else ""),
        })
    return out


def _count():
    from sqlalchemy import func

    return func.count()
