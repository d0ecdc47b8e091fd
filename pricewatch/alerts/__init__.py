"""Alerts: what changed in a run that the editor of the published pages must hear about.

`derive_alerts(con, run_id, config)` compares a run's snapshot with the one before it, stores
one alert event per state change (table alerts) and composes the messages people receive
(table alert_messages: one digest per run and page, one per source outage or recovery, per
rules change, per new GPU label); `deliver_alerts(con, config)` sends the pending messages
through apprise (notify.py) and keeps what failed for the next delivery.

- price_changed     an offer the claims cited moved (old, new, percent, every claim citing it)
- offer_disappeared a cited offer is gone from a successful run of its provider, or unpriced
- undercut          a "cheapest" claim's pick is now a cheaper competitor, not the cited offer
- claim_status      claims of a page went holds / drifted / unverifiable (one alert per page
                    and new status, listing each claim)
- source_failing    a source failed N runs in a row (once per failure streak)
- source_recovered  that source works again
- new_gpu_label     a provider lists a GPU label the catalog does not know (once per label)
- rule_change       the rules changed what claims say on the same snapshot (once per version)

How the package is cut (one job per module):

- model.py    the Alert record, its fingerprint, id and state; the run it is derived from
- derive.py   derive_alerts: loads a run, runs the checks below, stores the alerts (backfill)
- observe.py  price observations, price moves and suspect readings (held, confirmed, refuted)
- prices.py   price_changed, offer_disappeared, undercut
- claims.py   claim_status
- sources.py  source_failing, source_recovered, new_gpu_label
- deliver.py  deliver_alerts and list_alerts
- render.py   alert text: source strings made safe per output, bodies cut at BODY_MAX_CHARS
- rulechange.py rule_change
- mutes.py    mute rules and acks (muted events are recorded, never sent)
- compose.py  events -> messages (what an editor receives), with their structured fields
- templating.py  Jinja2 templates per message kind and format (templates/), escaping, fitting
- pageinfo.py, evidence_links.py  page title/URL, provider names, sentences; evidence links
- notify.py   sends a notice to apprise URLs (`pricewatch alerts` is pricewatch/cli/alerts.py)
- sql/        the set-based queries derivation and delivery run
- store.py    warehouse helpers shared by the modules above

Each module's docstring says the rules of its part (suspect readings, backfill, a first
failed night, undercuts, text, delivery).
"""
