"""Docs cannot drift: the collectives figures the README's prose quotes (validation
summary, all-to-all and all-reduce busbw) are computed here from the model. (The
README's and the collectives guide's `infra collectives` and `infra synthesize` blocks are
the commands' output: ``tests/test_docs_blocks.py``.)"""

from __future__ import annotations

from conftest import ROOT


def test_readme_prose_quotes_the_model():
    from infra.analysis.perf import collectives
    from infra.analysis.perf.published import summary, validate
    from infra.models.resolve import load_design

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    s = summary(validate())
    total = s["cases"] + s["known_misses"]
    assert (f"against {total} published nccl-tests/rccl-tests runs (median error "
            f"{s['median_pct']} %, max {s['max_pct']} % on {s['cases']} of them; "
            f"{'one' if s['known_misses'] == 1 else s['known_misses']} known miss") \
        in " ".join(text.split())
    for design in ("aws_nvl36x2_cluster", "gb200_nvl72_576"):
        rd = load_design(ROOT / "designs" / f"{design}.yaml")
        (far,) = collectives(rd, ops=("all_to_all",), gpus=(576,), sizes=(8 * 2**30,))
        (near,) = collectives(rd, ops=("all_to_all",), gpus=(72,), sizes=(8 * 2**30,))
        (ar,) = collectives(rd, ops=("all_reduce",), gpus=(72,), sizes=(8 * 2**30,))
        assert f"{far.busbw_gbyte_s:.1f} GB/s busbw on both" in text
        assert f"NVLink's {int(near.busbw_gbyte_s)} GB/s" in text
        assert f"~{round(ar.busbw_gbyte_s)} GB/s" in " ".join(text.split())
