"""Docs cannot drift (issue 28 item 7): the figures the power, robustness and capex/TCO
guides and the README quote in their prose are computed here from the model and looked up
in the text, so a figure edited by hand, or a model change that moves a figure, fails
here. (Their command blocks are the commands' output: ``tests/test_docs_blocks.py``.)"""

from __future__ import annotations

from conftest import ROOT


def test_power_guide_prose_quotes_the_model(catalog):
    """The NVL72, SU and GB300 figures the power guide's arithmetic quotes."""
    from infra.analysis.summary import analyze_file

    text = " ".join((ROOT / "docs/guides/power.md").read_text(encoding="utf-8").split())
    nvl72 = analyze_file(ROOT / "designs" / "gb200_nvl72.yaml", catalog).metrics()
    su = analyze_file(ROOT / "designs" / "gb200_nvl72_576.yaml", catalog)
    gb300 = analyze_file(ROOT / "designs" / "gb300_nvl72.yaml", catalog).metrics()
    assert f"= {nvl72['it_power_kw']:.2f} kW" in text
    assert ("Air: 18 x (300 + 450) W + 300 W = 13.8 kW, + the shelves' "
            f"{nvl72['it_power_kw'] - 122.16:.2f} kW loss = {nvl72['air_heat_kw']:.2f} kW") in text
    (row,) = [r for r in su.envelopes if r.scope == "pod:su"]
    kw = su.metrics()["it_power_kw"]
    assert f"{kw:,.1f} kW against NVIDIA's 1.2 MW SU TDP ({row.diff_pct:.1f} %" in text
    assert f"{1200 - kw:.1f} kW" in text  # NVIDIA's allowance for what the design omits
    assert f"{gb300['it_power_kw']:.2f} kW against NVIDIA's RA" in text


def test_capex_guide_prose_quotes_the_prices(catalog):
    """The planning prices and ranges the capex guide's arithmetic and source table quote
    are the price files'."""
    from infra.models.prices import load_prices

    text = (ROOT / "docs/guides/capex-tco.md").read_text(encoding="utf-8")
    book = load_prices(catalog=catalog)
    for slug in ("nvidia-hgx-b200", "nvidia-gb200-nvl72-rack", "nvidia-quantum-2-qm9700",
                 "nvidia-dgx-h100", "nvidia-gb300-nvl72-rack"):
        p = book.get(slug)
        (row,) = [x for x in text.split("\n") if x.startswith(f"| {slug}")]
        assert f"| {p.usd:,.0f} |" in row and f"{p.basis}, {p.covers}" in row and str(p.date) in row
    rack = book.get("nvidia-gb200-nvl72-rack")
    assert f"4 × ${rack.usd / 1e6:.1f}M + 20 × $36,000 = ${4 * rack.usd + 20 * 36_000:,.0f}" in text
    assert f"costs ${rack.high_usd / 1e6:.1f}M instead of ${rack.usd / 1e6:.1f}M" in text
    b200 = book.get("nvidia-hgx-b200").usd
    assert f"32 × ${b200:,.0f} + 12 × $36,000 = ${32 * b200 + 12 * 36_000:,.0f}" in text


def test_robustness_guide_prose_quotes_the_self_check(run_cli):
    """The availability self-check figures the robustness guide quotes are what
    ``infra failures designs/dgx_h100_superpod.yaml`` prints (seeded Monte Carlo)."""
    import json

    res = run_cli("failures", str(ROOT / "designs" / "dgx_h100_superpod.yaml"), "--format", "json")
    (row,) = json.loads(res.output)["tables"]["domain_availability"]
    text = " ".join((ROOT / "docs/guides/robustness.md").read_text(encoding="utf-8").split())
    assert row["agrees"]
    assert (f"closed form {row['closed_form']:g}, inside the Monte Carlo interval "
            f"[{row['mc_ci_low']:g}, {row['mc_ci_high']:g}]") in text


def test_readme_power_prose_quotes_the_model(catalog):
    """The README's power paragraph: NVL72, GB300 NVL72, DGX H100/B200 and the 8-rack
    GB200 SU against their published envelopes."""
    from infra.analysis.summary import analyze_file

    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())

    def it_kw(name):
        a = analyze_file(ROOT / "designs" / f"{name}.yaml", catalog)
        return a, a.metrics()["it_power_kw"]

    _, nvl72 = it_kw("gb200_nvl72")
    _, gb300 = it_kw("gb300_nvl72")
    assert f"The NVL72 rack computes to {nvl72:.2f} kW against NVIDIA's own ~120 kW" in text
    assert f"(Mission Control PRS FAQ; {100 * (nvl72 / 120 - 1):+.1f} %" in text
    assert f"GB300 NVL72 to {gb300:.2f} kW against NVIDIA's RA \"up to 142 kW\" " \
           f"({100 * (gb300 / 142 - 1):+.1f} %)" in text
    published = [next(r.published_kw for r in it_kw(n)[0].envelopes if r.scope.startswith("tray:"))
                 for n in ("dgx_h100_su", "dgx_b200_su")]
    assert f"DGX H100 and B200 to their published {published[0]:g} / {published[1]:g} kW" in text
    su, kw = it_kw("gb200_nvl72_576")
    (row,) = [r for r in su.envelopes if r.scope == "pod:su"]
    assert (f"the 8-rack GB200 SU to {kw:,.1f} kW against NVIDIA's 1.2 MW SU TDP "
            f"({row.diff_pct:.1f} %") in text


def test_readme_cost_table_is_the_compare(run_cli):
    """The README's like-for-like table (DGX B200 SU vs 4 x GB200 NVL72) is what
    ``infra compare`` computes: GPUs, capex, 5-year TCO and USD per GPU-hour."""
    import json

    r = run_cli("compare", str(ROOT / "designs/dgx_b200_su.yaml"),
                str(ROOT / "designs/gb200_nvl72_x4.yaml"), "--format", "json")
    assert r.exit_code == 0, r.output
    m = [o["metrics"] for o in json.loads(r.output)["options"]]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"| GPUs | {m[0]['gpus']:,} | {m[1]['gpus']:,} |" in text
    assert f"| capex (USD) | {m[0]['capex_usd']:,.0f} | {m[1]['capex_usd']:,.0f} |" in text
    assert f"| TCO 5 years (USD) | {m[0]['tco_usd_5y']:,.0f} | {m[1]['tco_usd_5y']:,.0f} |" in text
    assert (f"| **USD per GPU-hour** | **{m[0]['usd_per_gpu_hour']:.3f}** | "
            f"**{m[1]['usd_per_gpu_hour']:.3f}** |") in text


def _fence_after(text: str, marker: str) -> list[str]:
    """The lines of the first fenced block after ``marker`` in ``text``."""
    body = text[text.index(marker):].split("```", 2)[1]
    return [x for x in body.split("\n")[1:] if x.strip()]


def test_scale_up_guide_gb300_metrics_are_the_model(catalog):
    """The scale-up guide's GB300 NVL72 block (``key value`` pairs of the JSON metrics)
    is what the model computes today."""
    import re

    from infra.analysis.summary import analyze_file

    text = (ROOT / "docs/guides/scale-up.md").read_text(encoding="utf-8")
    m = analyze_file(ROOT / "designs" / "gb300_nvl72.yaml", catalog).metrics()
    pairs = [p for line in _fence_after(text, "## GB300 NVL72")
             for p in re.split(r",\s+|\s{3,}", line.strip())]
    assert len(pairs) >= 12
    for p in pairs:
        key, value = p.split(" ")
        assert str(m[key]) == value, (key, m[key], value)


def test_gaudi3_guide_field_descriptions_are_the_schemas():
    """The field descriptions the Gaudi 3 guide quotes are the generated schemas' text."""
    import json

    text = (ROOT / "docs/guides/gaudi3-and-bisection.md").read_text(encoding="utf-8")
    found = {}
    for name in ("gpu", "nic"):
        schema = json.loads((ROOT / "schemas" / f"catalog-{name}.schema.json").read_text())
        for owner, props in [("", schema["properties"])] + [
                (f"{k}.", d.get("properties", {})) for k, d in schema.get("$defs", {}).items()]:
            for field, spec in props.items():
                found.setdefault(f"{owner}{field}", spec.get("description"))
    found["Nic.role"] = schema["properties"]["role"]["description"]  # the NIC schema's
    lines = _fence_after(text, "## Every catalog field has a description")
    assert len(lines) >= 5
    for line in lines:
        field, description = line.split(": ", 1)
        assert found.get(field) == description, field


def test_readme_sweep_prose_quotes_the_cx8_rack(catalog, tmp_path):
    """The README's sweep sentence: the CX-8 tray's NVL72 rack at the feeds, and what it
    adds over the CX-7 rack's, as the model computes them."""
    from infra.analysis.summary import analyze_file

    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    base = (ROOT / "designs" / "gb200_nvl72.yaml").read_text()
    kw = {}
    for tray in ("nvidia-gb200-compute-tray", "nvidia-gb200-compute-tray-cx8"):
        p = tmp_path / f"{tray}.yaml"
        p.write_text(base.replace("nvidia-gb200-compute-tray, count", f"{tray}, count"))
        (rack,) = analyze_file(p, catalog).power.racks
        kw[tray] = rack.it_kw
    cx7, cx8 = kw.values()
    assert (f"adds {cx8 - cx7:.2f} kW per rack at the feeds ({cx8:.2f} kW, still inside the "
            "132 kW") in text
