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
    # (see pricewatch/alerts.py, deliver_alerts). Bounded, and well above a slow 10 s webhook.
    timeout_s: float = 30.0


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
    unknown = set(section) - {"urls", "plausibility_pct", "failed_runs_threshold", "timeout_s"}
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
    return Config(AlertConfig(urls, plausibility, threshold, timeout), file, raw)


def _number(value, name: str, kind):
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"alerts.{name}: not a number: {value!r}") from None
