"""Alert text: titles and bodies built from strings a source printed, made safe for each output.

Every string a source printed (offer keys, labels, tiers, price text, errors quoting a
page) goes through pricewatch.record.text: `plain` in titles and in the stored body (what the CLI
shows), `markdown` in the body sent (apprise body_format Markdown; e-mail gets it as escaped
HTML). Bodies are cut at a line boundary (BODY_MAX_CHARS), saying how many lines were left out.
"""

from __future__ import annotations

from decimal import Decimal

from pricewatch.record import text

UTC_FMT = "%Y-%m-%d %H:%M UTC"
TITLE_MAX_CHARS = 250
BODY_MAX_CHARS = 3500      # under Slack's and most e-mail clients' limits; apprise splits further


class S(str):
    """A string a source printed: made inert for each output (pricewatch.record.text)."""


def _L(*parts) -> tuple[str, str]:
    """One body line as (plain, markdown): S parts escaped per output, the rest is ours."""
    return ("".join(text.plain(p) if isinstance(p, S) else str(p) for p in parts),
            "".join(text.markdown(p) if isinstance(p, S) else str(p) for p in parts))


def _cap(lines: list[str], limit: int = BODY_MAX_CHARS) -> str:
    """The lines joined, cut at a line boundary (never mid-word) when longer than limit."""
    body = "\n".join(lines)
    if len(body) <= limit:
        return body
    reserve = 90
    out, size = [], 0
    for ln in lines:
        if size + len(ln) + 1 > limit - reserve:
            break
        out.append(ln)
        size += len(ln) + 1
    if not out:   # one line longer than the limit: cut at the last space before it
        head = lines[0][: limit - reserve]
        out = [(head.rsplit(" ", 1)[0] if " " in head else head).rstrip() + " …"]
        left = len(lines) - 1
    else:
        left = len(lines) - len(out)
    if left:
        out.append(f"… and {left} more line(s): pricewatch alerts --json shows the alert in full.")
    return "\n".join(out)


def _render(lines: list) -> tuple[str, str]:
    """(plain body, Markdown body) of lines that are our own str or _L pairs."""
    pairs = [ln if isinstance(ln, tuple) else (ln, ln) for ln in lines]
    return _cap([p for p, _ in pairs]), _cap([m for _, m in pairs])


def _claim_lines(claims: list[dict]) -> list:
    if not claims:
        return ["Cited by: no claim in the current evaluation."]
    return ["Cited by:"] + [
        _L(f"- {c['claim_id']} ({c['page'] or 'page ?'}, {c['role']} input '", S(c["input"]),
           f"'): now {c['status'] or '?'}",
           *((", published ", S(_shown(c, "published")), ", current ", S(_shown(c, "current")))
             if c.get("status") else ()))
        for c in claims]


def _evidence(offer: dict) -> tuple[str, str]:
    return _L("Evidence: ", S(offer["source_url"]), " (WARC ", S(offer["warc_file"]), ", record ",
              S(offer["warc_record_id"]), ")")


def _shown(item: dict, which: str) -> str:
    text, value = item.get(f"{which}_text"), item.get(f"{which}_value")
    return text if text else ("-" if value is None else f"{Decimal(str(value)).normalize():f}")


def _dec(v) -> Decimal | None:
    return None if v is None else Decimal(str(v))


def _money(v) -> str:
    """1.09, 43.46, 5.4325: cents always, more digits only when the source has them."""
    d = Decimal(str(v)).normalize()
    return f"{d:,.2f}" if d.as_tuple().exponent >= -2 else f"{d:,f}"
