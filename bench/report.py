"""Turn a run's results into a markdown report, a JSON file, a PNG chart and README text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

README_START = "<!-- bench:results:start -->"
README_END = "<!-- bench:results:end -->"


def _fmt_num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def _fmt_ratio(r: float) -> str:
    if r >= 100:
        return f"{r:,.0f}x"
    if r >= 10:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


def _entries(run: dict[str, Any], server: str) -> dict[tuple[str, int], dict[str, Any]]:
    srv = run["servers"].get(server, {})
    return {(e["scenario"], e["conns"]): e for e in srv.get("results", [])}


def reference_server(run: dict[str, Any]) -> str | None:
    """The tallydb entry the ratios are computed from (first one that has figures)."""
    for name, srv in run["servers"].items():
        if srv.get("tallydb") and any(e.get("figure") for e in srv.get("results", [])):
            return name
    return None


# the speed targets, all on scenario A at 64 connections:
# (what, server, peer or None, field, "ratio>=" | "<=" | "<" | "ratio>=" of the peer)
TARGETS: list[tuple[str, str, str | None, str, str, float]] = [
    ("at least 4x dynalite in memory", "tallydb", "dynalite-memory", "figure", ">=x", 4),
    ("at least 50x DynamoDB Local on disk", "tallydb", "ddblocal-disk", "figure", ">=x", 50),
    ("at least 100x moto", "tallydb", "moto", "figure", ">=x", 100),
    ("at most 40 µs of server CPU per request", "tallydb", None, "cpu_us_per_request", "<=", 40),
    ("p99 under 5 ms", "tallydb", None, "p99_ms", "<", 5),
    ("at least 30% of the no-op ceiling", "tallydb", "noop", "figure", ">=x", 0.3),
    ("--sync full: at least 30x DynamoDB Local on disk", "tallydb-sync-full", "ddblocal-disk",
     "figure", ">=x", 30),
]  # fmt: skip


def targets(run: dict[str, Any]) -> list[str]:
    """The speed targets as a markdown table; empty if A at 64 connections was not run."""
    if "A" not in run["meta"]["scenarios"] or 64 not in run["meta"]["connections"]:
        return []
    rows = []
    for what, server, peer, fld, op, threshold in TARGETS:
        mine = _entries(run, server).get(("A", 64), {}).get(fld)
        if mine is None:
            rows.append(f"| {server}: {what} | - | not measured |")
            continue
        if op == ">=x":
            theirs = _entries(run, peer or "").get(("A", 64), {}).get(fld)
            if not theirs:
                rows.append(f"| {server}: {what} | - | {peer} not measured |")
                continue
            value = mine / theirs
            shown = f"{value:.2f}x" if value < 10 else f"{value:,.0f}x"
            met = value >= threshold
        else:
            value = float(mine)
            shown = f"{value:,.1f}"
            met = value <= threshold if op == "<=" else value < threshold
        rows.append(f"| {server}: {what} | {shown} | {'met' if met else '**not met**'} |")
    return [
        "**Speed targets** (scenario A, 64 connections, this run):",
        "",
        "| target | measured | |",
        "|---|---:|---|",
        *rows,
    ]


def markdown(run: dict[str, Any]) -> str:
    meta = run["meta"]
    servers = list(run["servers"])
    measured = [s for s in servers if run["servers"][s]["status"] == "measured"]
    ref = reference_server(run)
    lines: list[str] = []
    lines.append(
        f"Run of {meta['date']} on {meta['machine']}; commit `{meta.get('commit') or '?'}`. "
        + (f"Server pinned to CPU {meta['server_cpus']}, wrk ({meta['wrk_threads']} thread) "
           f"to CPU {meta['load_cpus']}; " if meta.get("server_cpus") is not None else
           f"Nothing pinned: servers and wrk ({meta['wrk_threads']} thread) contend for "
           "every CPU (p99 under contention); ")
        + f"{meta['warmup']} s warm-up, "
        f"{meta['repetitions']} x {meta['duration']} s measured, medians. "
        f"`{meta['command']}`"
    )
    others = [
        e["other_cpu_percent"]
        for s in measured
        for e in run["servers"][s].get("results", [])
        if e.get("other_cpu_percent") is not None
    ]
    if others:
        others.sort()
        median_other = others[len(others) // 2]
        if median_other >= 10:
            lines.append("")
            lines.append(
                f"**Noisy run**: other processes used {median_other:.0f}% of a core during "
                f"the median measured window (up to {others[-1]:.0f}%); load average "
                f"{meta.get('load_start', 0):.1f} at the start. Compare ratios, not absolutes."
            )
    lines.append("")
    ratio_note = (
        f"In parentheses: {ref} ÷ that server, same run." if ref else "No tallydb figures yet."
    )
    lines.append(
        f"**Throughput**, requests/s (D: successful compare-and-set increments/s). {ratio_note}"
    )
    lines.append("")
    lines.append("| scenario | conns | " + " | ".join(measured) + " |")
    lines.append("|---|---:|" + "---:|" * len(measured))
    scenario_titles = meta["scenario_titles"]
    ref_entries = _entries(run, ref) if ref else {}
    for sid in meta["scenarios"]:
        for conns in meta["connections"]:
            cells = []
            ref_fig = ref_entries.get((sid, conns), {}).get("figure")
            for s in measured:
                e = _entries(run, s).get((sid, conns), {})
                fig = e.get("figure")
                if e.get("failed"):
                    cells.append("failed")
                elif fig is None:
                    cells.append("-")
                elif ref_fig and s != ref and fig > 0:
                    cells.append(f"{fig:,.0f} ({_fmt_ratio(ref_fig / fig)})")
                else:
                    cells.append(f"{fig:,.0f}")
            lines.append(f"| {sid} {scenario_titles[sid]} | {conns} | " + " | ".join(cells) + " |")
    lines.append("")

    target_rows = targets(run)
    if target_rows:
        lines.extend([*target_rows, ""])

    top = max(meta["connections"])
    lines.append(
        f"**Latency, server CPU and errors at {top} connections** "
        "(CPU: server process tree, /proc utime+stime over the measured window / requests; "
        "errors: non-2xx and socket errors, D's conditional-check conflicts excluded; "
        "other CPU: what the rest of the machine used meanwhile, % of one core)."
    )
    lines.append("")
    lines.extend(_detail_table(run, measured, [top]))
    lines.append("")

    exact_rows = [
        (s, run["servers"][s]["exact"]) for s in measured if run["servers"][s].get("exact")
    ]
    if exact_rows:
        e0 = exact_rows[0][1]
        lines.append(
            f"**Exact count** (A's item pattern, {e0['threads']} boto3 threads x "
            f"{e0['per_thread']} `ADD play_count :one` at once, botocore retries off):"
        )
        lines.append("")
        lines.append("| server | final | expected | acknowledged | errors | seconds | result |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        for s, e in exact_rows:
            verdict = "exact" if e["ok"] else "**lost updates**"
            if not e["ok"] and e["final"] is not None and e["final"] > e["expected"]:
                verdict = "**counted twice**"
            if not e.get("complete", True):
                verdict += f" (stopped at the time limit after {e['sent']:,} sent)"
            lines.append(
                f"| {s} | {_fmt_num(e['final'])} | {e['expected']:,} | {e['acknowledged']:,} "
                f"| {e['errors']} | {e['seconds']} | {verdict} |"
            )
        lines.append("")

    lines.append("**Servers**")
    lines.append("")
    lines.append("| name | what | version | start-up s | RSS MB at end | status |")
    lines.append("|---|---|---|---:|---:|---|")
    for s in servers:
        srv = run["servers"][s]
        status = srv["status"]
        if srv.get("reason"):
            status += ": " + srv["reason"].replace("|", "/")[:300]
        if srv.get("problems"):
            status += "; " + "; ".join(p.replace("|", "/")[:200] for p in srv["problems"][:3])
        lines.append(
            f"| {s} | {srv['label']} | {srv.get('version') or '-'} "
            f"| {_fmt_num(srv.get('startup_seconds'), 2)} | {_fmt_num(srv.get('rss_mb'), 0)} "
            f"| {status} |"
        )
    lines.append("")
    lines.append("<details><summary>Every scenario at every connection level</summary>")
    lines.append("")
    lines.extend(_detail_table(run, measured, meta["connections"]))
    lines.append("")
    lines.append("</details>")
    return "\n".join(lines) + "\n"


def _detail_table(run: dict[str, Any], measured: list[str], conns_levels: list[int]) -> list[str]:
    meta = run["meta"]
    out = [
        "| scenario | conns | server | req/s | p50 ms | p99 ms | CPU µs/req | errors "
        "| other CPU % | notes |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for sid in meta["scenarios"]:
        for conns in conns_levels:
            for s in measured:
                e = _entries(run, s).get((sid, conns))
                if e is None:
                    continue
                if e.get("failed"):
                    reason = str(e["failed"]).replace("|", "/")[:200]
                    out.append(f"| {sid} | {conns} | {s} | failed | | | | | | {reason} |")
                    continue
                notes = []
                if sid == "D" and run["servers"][s].get("noop"):
                    notes.append("every {} counts as a success")
                elif sid == "D":
                    notes.append(
                        f"{_fmt_num(e.get('increments_per_s'))} increments/s, "
                        f"{e.get('cas_conflicts', 0):,} conflicts"
                    )
                    if e.get("cas_check_ok") is False:
                        notes.append("**CAS count mismatch**")
                if (e.get("wrk_cpu_percent") or 0) >= 90:
                    notes.append(f"wrk at {e['wrk_cpu_percent']:.0f}% CPU: generator-bound")
                out.append(
                    f"| {sid} | {conns} | {s} | {_fmt_num(e.get('rps'))} "
                    f"| {_fmt_num(e.get('p50_ms'), 2)} | {_fmt_num(e.get('p99_ms'), 2)} "
                    f"| {_fmt_num(e.get('cpu_us_per_request'), 1)} | {e.get('errors', 0):,} "
                    f"| {_fmt_num(e.get('other_cpu_percent'))} | {'; '.join(notes)} |"
                )
    return out


def write_json(run: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run, indent=2, sort_keys=False) + "\n")


def write_chart(run: dict[str, Any], path: Path) -> str | None:
    """One panel per scenario, bars per server at each connection level (log scale).
    Returns why no chart was drawn, or None."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"matplotlib not installed ({e}); pip install -e '.[bench]'"
    meta = run["meta"]
    measured = [s for s in run["servers"] if run["servers"][s]["status"] == "measured"]
    if not measured:
        return "nothing measured"
    scenarios = meta["scenarios"]
    conns_levels = meta["connections"]
    fig, axes = plt.subplots(
        1, len(scenarios), figsize=(4.2 * len(scenarios), 4.6), squeeze=False, sharey=True
    )
    cmap = plt.get_cmap("tab10")
    width = 0.8 / len(measured)
    for ax, sid in zip(axes[0], scenarios, strict=True):
        for i, s in enumerate(measured):
            entries = _entries(run, s)
            values = [entries.get((sid, c), {}).get("figure") or 0 for c in conns_levels]
            xs = [j + (i - (len(measured) - 1) / 2) * width for j in range(len(conns_levels))]
            ax.bar(xs, values, width, label=s, color=cmap(i % 10))
        ax.set_yscale("log")
        ax.set_xticks(range(len(conns_levels)), [str(c) for c in conns_levels])
        ax.set_xlabel("connections")
        unit = "increments/s" if sid == "D" else "req/s"
        ax.set_title(f"{sid}. {meta['scenario_titles'][sid]} ({unit})", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0][0].set_ylabel("per second (log)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(measured), 8), fontsize=9)
    fig.suptitle(f"tallydb bench, {meta['date']}: {meta['machine']}", fontsize=11)
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def update_readme(readme: Path, table: str) -> bool:
    """Replace the text between the README's result markers; False if they are missing."""
    try:
        text = readme.read_text()
    except OSError:
        return False
    start = text.find(README_START)
    end = text.find(README_END)
    if start < 0 or end < start:
        return False
    new = text[: start + len(README_START)] + "\n" + table + text[end:]
    readme.write_text(new)
    return True
