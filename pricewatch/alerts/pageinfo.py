"""What a message says about a page, a provider and a sentence, read from rules/.

- page_info: the page's title (en, ja) and published URL (rules/<page>/page.yaml, page.url;
  a URL containing "PLACEHOLDER" is said to be one, so the editor sets the real address).
- provider_name: the provider's display name (rules/providers.yaml).
- sentence: the claim's sentences as the page renderer regenerates them
  (pricewatch.claims.pages.sentences); the one seam between alerts and the page renderer.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _rules():
    from pricewatch.claims.rules import cached_rules
    return cached_rules()


@lru_cache(maxsize=16)
def page_info(page_id: str) -> dict:
    page = _rules().pages.get(page_id)
    url = page.page.url if page else None
    return {"id": page_id, "title": page.page.title.en if page else page_id,
            "title_ja": page.page.title.ja if page else None, "url": url,
            "url_is_placeholder": bool(url and "PLACEHOLDER" in url),
            "rules_file": f"rules/{page_id}/page.yaml"}


def provider_name(provider: str | None) -> str | None:
    return None if provider is None else _rules().provider_name(provider)


def sentence_of(page_id: str, rows: dict[str, dict]):
    """claim id -> the regenerated text of every sentence (or table cell) of the page that prints
    or asserts the claim (pricewatch.claims.pages.sentences, rows: the run's evaluation of each
    claim), joined by " / "; None when the claim is on no sentence of the page. The page is
    rendered once, however many claims are asked for."""
    from pricewatch.claims.pages import render_page, sentences
    rules = _rules()
    page = rules.pages.get(page_id)
    rendered = render_page(rules, page, rows) if page is not None and page.template else None

    def sentence(claim_id: str) -> str | None:
        if rendered is None or rules.claims.get(claim_id) is None or rules.claims[claim_id].page != page_id:
            return None
        return " / ".join(new for _, new in sentences(rules, claim_id, rows, rendered)) or None
    return sentence
