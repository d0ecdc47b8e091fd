"""Configuration and apprise delivery, against a real HTTP receiver on localhost."""

import json
import logging

import pytest
from pytest_httpserver import HTTPServer

from pricewatch.alerts.notify import redact_url, send
from pricewatch.record.config import ConfigError, load_config

SECRET = "xoxb7Secret9Token"


@pytest.fixture
def receiver():
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


def test_toml_file_then_environment_override(tmp_path):
    cfg = tmp_path / "pricewatch.toml"
    cfg.write_text('[alerts]\nurls = ["json://127.0.0.1:9/a"]\nplausibility_pct = 50\nfailed_runs_threshold = 2\n')
    from_file = load_config(env={"PRICEWATCH_CONFIG": str(cfg)})
    assert (from_file.alerts.urls, from_file.alerts.plausibility_pct, from_file.alerts.failed_runs_threshold) == \
        (("json://127.0.0.1:9/a",), 50.0, 2)
    # Env wins; URLs separated by commas and/or spaces (as a secrets manager would inject them).
    env = {"PRICEWATCH_CONFIG": str(cfg), "PRICEWATCH_ALERT_URLS": "json://h/1, slack://a/b/c  mailto://u:p@x.org",
           "PRICEWATCH_ALERT_PLAUSIBILITY_PCT": "75", "PRICEWATCH_ALERT_FAILED_RUNS": "4"}
    over = load_config(env=env).alerts
    assert over.urls == ("json://h/1", "slack://a/b/c", "mailto://u:p@x.org")
    assert (over.plausibility_pct, over.failed_runs_threshold) == (75.0, 4)


def test_defaults_without_file_and_bad_values_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./pricewatch.toml here
    alerts = load_config(env={}).alerts
    assert (alerts.urls, alerts.plausibility_pct, alerts.failed_runs_threshold) == ((), 60.0, 3)
    with pytest.raises(ConfigError, match="not found"):
        load_config(env={"PRICEWATCH_CONFIG": str(tmp_path / "missing.toml")})
    with pytest.raises(ConfigError, match="failed_runs_threshold"):
        load_config(env={"PRICEWATCH_ALERT_FAILED_RUNS": "0"})
    (tmp_path / "pricewatch.toml").write_text("[alerts]\nurl = 'typo'\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(env={})


def test_json_webhook_receives_title_body_and_type(receiver):
    receiver.expect_request("/hook", method="POST").respond_with_data("ok")
    result = send("Price changed", "A100 80GB $1.09 -> $1.29/h", "warning", [f"json://127.0.0.1:{receiver.port}/hook"])
    assert result.ok
    (request, _), = receiver.log
    payload = json.loads(request.data)
    assert (payload["title"], payload["message"], payload["type"]) == ("Price changed", "A100 80GB $1.09 -> $1.29/h", "warning")
    assert request.headers["Content-Type"].startswith("application/json")


def test_one_failing_target_does_not_hide_the_other_and_secrets_stay_out_of_errors_and_logs(receiver, caplog):
    receiver.expect_request("/down").respond_with_data("boom", status=500)
    receiver.expect_request(f"/up/{SECRET}").respond_with_data("ok")
    bad = f"json://ops:{SECRET}@127.0.0.1:{receiver.port}/down"
    good = f"json://127.0.0.1:{receiver.port}/up/{SECRET}"   # a token in the path, as webhooks have
    with caplog.at_level(logging.DEBUG):
        result = send("t", "b", "info", [bad, good])
    assert not result.ok
    failed, delivered = result.deliveries
    assert delivered.ok and not failed.ok
    assert "500" in failed.error
    # Every log line of the sending side (the receiver's own access log is not ours).
    ours = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("werkzeug"))
    assert "/up/****" in ours
    for text in (failed.error, failed.label, result.error, ours):
        assert SECRET not in text
    assert len(receiver.log) == 2


def test_redacted_labels_hide_tokens_in_host_path_and_password():
    slack = "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ/#general"
    discord = "discord://4174216298/JHMHI8qBe7bk2ZwO5U711o3dV_js"
    mail = f"mailtos://alerts:{SECRET}@smtp.example.org"
    for url, secrets in ((slack, ["T1JJ3T3L2", "TIiajkdnlazkcOXrIdevi7FQ"]),
                         (discord, ["4174216298", "JHMHI8qBe7bk2ZwO5U711o3dV_js"]), (mail, [SECRET])):
        label = redact_url(url)
        assert label.split("://")[0] == url.split("://")[0]
        assert not any(s in label for s in secrets), label
    assert "not a valid apprise URL" in redact_url(f"nosuchservice://{SECRET}")
    assert SECRET not in redact_url(f"nosuchservice://{SECRET}")


def test_no_urls_is_not_ok_and_says_how_to_configure():
    result = send("t", "b", "info", [])
    assert not result.ok
    assert "PRICEWATCH_ALERT_URLS" in result.error
