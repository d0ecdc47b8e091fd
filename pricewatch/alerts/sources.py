"""Alerts on the sources themselves: source_failing (once per failure streak),
source_recovered, new_gpu_label (once per label)."""

from __future__ import annotations

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.render import _L, UTC_FMT, S
from pricewatch.alerts.store import _rows, sql
from pricewatch.record.config import AlertConfig


def _source_health(con, run: _Run, cfg: AlertConfig) -> list[Alert]:
    out = []
    # A provider that was not attempted (not in a replayed archive, or disabled) did not fail.
    histories: dict[str, list[dict]] = {}
    for h in _rows(con, sql("provider_history"), [run.seq, run.run_id]):
        histories.setdefault(h["provider"], []).append(h)
    for provider, history in sorted(histories.items()):
        if history[0]["trusted"]:
            streak = _streak(history[1:])
            if len(streak) >= cfg.failed_runs_threshold:
                out.append(Alert("source_recovered", provider, f"{streak[-1]['run_id']}|{run.run_id}", run.run_id,
                                 f"Source {provider} works again after {len(streak)} failed runs",
                                 [f"{provider} succeeded in the run of {run.observed_at:{UTC_FMT}} after {len(streak)} "
                                  f"failed runs in a row since {streak[-1]['observed_at']:{UTC_FMT}}."],
                                 {"provider": provider, "failed_runs": len(streak), "since_run_id": streak[-1]["run_id"]},
                                 "success"))
            continue
        streak = _streak(history)
        if len(streak) < cfg.failed_runs_threshold:
            continue
        first = streak[-1]
        last_ok = next((h for h in history if h["trusted"]), None)
        since_ok = (f"its latest prices are those of {last_ok['observed_at']:{UTC_FMT}}" if last_ok
                    else "it has never succeeded")
        lines: list = [f"{provider} has failed {len(streak)} runs in a row (threshold {cfg.failed_runs_threshold}) "
                       f"since {first['observed_at']:{UTC_FMT}}; {since_ok}.", "Errors, newest first (each once):"]
        distinct: dict[tuple, list[dict]] = {}
        for h in streak:
            distinct.setdefault((h["status"], _unprefixed(provider, h["error"])), []).append(h)
        for (status, error), runs in distinct.items():
            when = (f"{runs[0]['observed_at']:{UTC_FMT}}" if len(runs) == 1 else
                    f"{len(runs)} runs, {runs[-1]['observed_at']:{UTC_FMT}} to {runs[0]['observed_at']:{UTC_FMT}}")
            lines.append(_L(f"- {status} ({when}): ", S(error)))
        details = {"provider": provider, "failed_runs": len(streak), "threshold": cfg.failed_runs_threshold,
                   "since_run_id": first["run_id"], "since": first["observed_at"],
                   "last_ok_at": last_ok["observed_at"] if last_ok else None,
                   "errors": [{"run_id": h["run_id"], "status": h["status"], "error": h["error"]} for h in streak]}
        # Keyed on the streak's first run: one alert per streak, however long it lasts.
        out.append(Alert("source_failing", provider, first["run_id"], run.run_id,
                         f"Source {provider} failed {len(streak)} runs in a row", lines, details, "failure"))
    return out


def _new_labels(con, run: _Run) -> list[Alert]:
    """One alert per GPU label a provider prints that the catalog does not know: news (a new
    GPU, or a new way of naming one) for whoever keeps pricewatch/record/gpu_catalog.yaml. Its offers
    are stored with gpu_model NULL meanwhile; the fingerprint has no run, so it is said once."""
    out = []
    for provider, labels in con.execute("""SELECT provider, unknown_labels FROM provider_runs
                                           WHERE run_id = ? AND status IN ('ok', 'suspect') ORDER BY 1""",
                                        [run.run_id]).fetchall():
        for label in sorted(set(labels or [])):
            n = con.execute("SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND gpu_label = ?",
                            [run.run_id, provider, label]).fetchone()[0]
            out.append(Alert("new_gpu_label", f"{provider}/{label}", "", run.run_id,
                             f"New GPU label at {provider}: {label}",
                             [_L(S(provider), f" lists {n} offer(s) as ", S(repr(label)), ", a GPU label "
                                 f"pricewatch/record/gpu_catalog.yaml does not know (seen {run.observed_at:{UTC_FMT}}). They are "
                                 "stored with no canonical model and are left out of comparisons until the catalog "
                                 "maps the label.")],
                             {"provider": provider, "label": label, "offers": n}, "info"))
    return out


def _unprefixed(provider: str, error: str | None) -> str:
    """A provider run's error without the provider's name in front (the line names it already)."""
    if not error:
        return "no error text"
    return error[len(provider) + 2:] if error.startswith(f"{provider}: ") else error


def _streak(history: list[dict]) -> list[dict]:
    """The provider runs (newest first) whose readings are not in force, back to the last that were."""
    out = []
    for h in history:
        if h["trusted"]:   # ok, or suspect only for rows the parser held: its other rows are in force
            break
        out.append(h)
    return out
