"""Settings: an optional TOML file, overridden by environment variables.

The file is ``$PRICEWATCH_CONFIG`` when set (it must then exist), else ``./pricewatch.toml``
when present. Alert URLs carry secrets (webhook tokens, SMTP passwords): keep them in the
environment or in an untracked file, never in the repository. See pricewatch.example.toml.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

DEFAULT_FILE = "pricewatch.toml"


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class AlertConfig:
    urls: tuple[str, ...] = ()
    # A cited price moving more than this (in percent, up or down) between two runs is held
    # as suspect until the next run shows the same price: scrapers misread more often than
    # clouds cut prices by two thirds overnight.
    plausibility_pct: float = 60.0
    # A source that failed this many runs in a row raises one alert (per failure streak).
    failed_runs_threshold: int = 3
    # How long one alert URL may take to answer (seconds). A receiver that has not answered by
    # then got the whole request and may well process it: the alert is not sent to it again
    # (see pricewatch/alerts/deliver.py, deliver_alerts). Bounded, and well above a slow 10 s webhook.
    timeout_s: float = 30.0
    # Where the archived evidence is served (e.g. a pywb / ReplayWeb.page / static host of the
    # archive root): a message links <evidence_base_url>/<WARC path relative to the archive
    # root>?record=<WARC-Record-ID>. Unset: messages print the `pricewatch evidence` command only.
    evidence_base_url: str | None = None
    # Where the claims report is published (the outage message points to it); unset: the
    # report's path next to the database (report/claims-report.md).
    report_url: str | None = None
    # A folder of Jinja2 templates overriding the shipped ones (pricewatch/alerts/templates/),
    # file by file: <kind>.title.txt, <kind>.txt, <kind>.md, <kind>.html.
    templates: str | None = None


@dataclass(frozen=True)
class Config:
    alerts: AlertConfig = AlertConfig()
    path: Path | None = None
    raw: dict = field(default_factory=dict)  # the whole file, for sections other modules own


def split_urls(text: str) -> tuple[str, ...]:
    """Apprise URLs separated by commas, spaces or newlines (URLs never contain a raw space;
    a comma inside one must be percent-encoded as %2C)."""
    return tuple(u for u in re.split(r"[\s,]+", text or "") if u)


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    raw: dict = {}
    file = Path(path) if path else (Path(env["PRICEWATCH_CONFIG"]) if env.get("PRICEWATCH_CONFIG") else None)
    if file is not None and not file.is_file():
        raise ConfigError(f"config file not found: {file}")
    if file is None and Path(DEFAULT_FILE).is_file():
        file = Path(DEFAULT_FILE)
    if file is not None:
        try:
            raw = tomllib.loads(file.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file}: {exc}") from exc

    section = raw.get("alerts", {})
    unknown = set(section) - {"urls", "plausibility_pct", "failed_runs_threshold", "timeout_s",
                              "evidence_base_url", "report_url", "templates"}
    if unknown:
        raise ConfigError(f"{file}: unknown key(s) in [alerts]: {', '.join(sorted(unknown))}")
    urls = section.get("urls", ())
    urls = split_urls(urls) if isinstance(urls, str) else tuple(urls)
    if env.get("PRICEWATCH_ALERT_URLS") is not None:
        urls = split_urls(env["PRICEWATCH_ALERT_URLS"])
    plausibility = _number(env.get("PRICEWATCH_ALERT_PLAUSIBILITY_PCT", section.get("plausibility_pct", 60)),
                           "plausibility_pct", float)
    threshold = _number(env.get("PRICEWATCH_ALERT_FAILED_RUNS", section.get("failed_runs_threshold", 3)),
                        "failed_runs_threshold", int)
    timeout = _number(env.get("PRICEWATCH_ALERT_TIMEOUT_S", section.get("timeout_s", 30)), "timeout_s", float)
    if not 0 < timeout <= 300:
        raise ConfigError("alerts.timeout_s must be > 0 and <= 300 (seconds)")
    if plausibility <= 0:
        raise ConfigError("alerts.plausibility_pct must be > 0")
    if threshold < 1:
        raise ConfigError("alerts.failed_runs_threshold must be >= 1")
    texts = {}
    for key, var in (("evidence_base_url", "PRICEWATCH_EVIDENCE_BASE_URL"), ("report_url", "PRICEWATCH_REPORT_URL"),
                     ("templates", "PRICEWATCH_ALERT_TEMPLATES")):
        value = env.get(var, section.get(key))
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"alerts.{key}: not a string: {value!r}")
        texts[key] = value or None
    for key in ("evidence_base_url", "report_url"):
        if texts[key] and not re.match(r"^https?://", texts[key]):
            raise ConfigError(f"alerts.{key} must be an http(s) URL (got {texts[key]!r})")
    if texts["templates"] and not Path(texts["templates"]).is_dir():
        raise ConfigError(f"alerts.templates: not a folder: {texts['templates']}")
    return Config(AlertConfig(urls, plausibility, threshold, timeout, **texts), file, raw)


def _number(value, name: str, kind):
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"alerts.{name}: not a number: {value!r}") from None
