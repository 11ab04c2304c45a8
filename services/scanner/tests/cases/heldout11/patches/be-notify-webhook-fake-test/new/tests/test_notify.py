"""Tests for scripts/notify.py. The webhook URL below is Slack's documented
placeholder format (all zeros / X's) and is not a real webhook; the HTTP call
is mocked, nothing is sent."""
import json
import sys
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import notify  # noqa: E402

FAKE_WEBHOOK = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"


def test_failed_mentions_oncall():
    p = notify.build_payload("failed", "payments", "3.2.1", "prod")
    assert "<!subteam^oncall>" in p["attachments"][0]["text"]
    assert p["attachments"][0]["color"] == "danger"


def test_send_posts_json(monkeypatch):
    monkeypatch.setenv("SLACK_DEPLOY_WEBHOOK", FAKE_WEBHOOK)
    fake_resp = mock.MagicMock(status=200)
    fake_resp.__enter__.return_value = fake_resp
    with mock.patch("urllib.request.urlopen", return_value=fake_resp) as urlopen:
        assert notify.send(FAKE_WEBHOOK, {"text": "hi"}) == 200
    req = urlopen.call_args.args[0]
    assert req.full_url == FAKE_WEBHOOK
    assert json.loads(req.data) == {"text": "hi"}
