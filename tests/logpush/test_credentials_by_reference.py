"""Credentials by reference (``${NAME}`` in a jobs file, ``${var.x}`` in Terraform), end to end
through the command line and Python (issue 33): a job's stored credentials never move to
another destination, a literal ``${NAME}`` survives export -> apply, a variable set to the
empty string is refused, and a deletion whose answer was lost is done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import Cli
from conformance import checker, traffic
from conformance.tracker import TRACKER
from escpush import InvalidInput
from escpush.testing import Emulator

ZONE = "0000000000000000000000000000c33d"
TOKEN = "TOKEN-never-moved-0123456789"
HELD = f"https://logs.example.com/in?header_Authorization={TOKEN}"
MOVED = "https://other.example.net/in?header_Authorization=${LOGPUSH_X_HEADER_AUTHORIZATION}"


def jobs_file(tmp_path: Path, destination: str, name: str = "jobs.json") -> Path:
    path = tmp_path / name
    job = {"name": "x", "dataset": "http_requests", "destination_conf": destination}
    path.write_text(json.dumps({"jobs": [job]}), encoding="utf-8")
    return path


def stored(api: Emulator, zone: str = ZONE) -> list[str]:
    return [job.reveal()["destination_conf"] for job in api.client().zone(zone).logpush.jobs()]


def test_stored_credentials_never_move_to_another_destination(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Item 1: apply, ensure (command line and Python) and a .tf file, the variable unset.
    monkeypatch.delenv("LOGPUSH_X_HEADER_AUTHORIZATION", raising=False)
    monkeypatch.delenv("TF_VAR_tok", raising=False)
    logpush = api.client().zone(ZONE).logpush
    logpush.create_job(name="x", dataset="http_requests", destination_conf=HELD)
    tf = tmp_path / "main.tf"
    tf.write_text(
        'resource "cloudflare_logpush_job" "x" {\n  name = "x"\n  dataset = "http_requests"\n'
        '  destination_conf = "https://other.example.net/in?header_Authorization=${var.tok}"\n}\n',
        encoding="utf-8",
    )
    for argv, variable in [
        (["apply", str(jobs_file(tmp_path, MOVED))], "LOGPUSH_X_HEADER_AUTHORIZATION"),
        (["apply", str(tf)], "TF_VAR_tok"),
        (["ensure", "--name", "x", "--from", str(tf)], "TF_VAR_tok"),
        (
            ["ensure", "--name", "x", "--dataset", "http_requests", "--destination-conf", MOVED],
            "LOGPUSH_X_HEADER_AUTHORIZATION",
        ),
    ]:
        run = cli("logpush", *argv, "--zone", ZONE)
        assert run.code == 2, (argv, run.out, run.err)
        assert "moving the job to another destination" in run.err and variable in run.err, run.err
        assert TOKEN not in run.out + run.err
        assert stored(api) == [HELD], argv
    with pytest.raises(InvalidInput, match="LOGPUSH_X_HEADER_AUTHORIZATION"):
        logpush.ensure_job(name="x", dataset="http_requests", destination_conf=MOVED, variables={})
    assert stored(api) == [HELD]
    # Given, the credential goes with the move; the same place keeps the stored one.
    monkeypatch.setenv("LOGPUSH_X_HEADER_AUTHORIZATION", "NEW-TOKEN-for-the-new-host")
    assert cli("logpush", "apply", str(jobs_file(tmp_path, MOVED)), "--zone", ZONE).code == 0
    assert stored(api) == [MOVED.replace("${LOGPUSH_X_HEADER_AUTHORIZATION}", "NEW-TOKEN-for-the-new-host")]


@pytest.mark.parametrize("form", ["toml", "json", "terraform"])
def test_a_literal_reference_survives_export_and_apply(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    # Item 4: `${HOME}` in a stored destination is text, not a variable.
    zone = "0000000000000000000000000000c34d"
    literal = "https://logs.example.com/in/${HOME}?header_Authorization=" + TOKEN
    api.client().zone(zone).logpush.create_job(name="x", dataset="http_requests", destination_conf=literal)
    monkeypatch.setenv("HOME", "/root")
    exported = cli("logpush", "export", "--zone", zone, "--format", form)
    assert exported.code == 0, exported.err
    assert TOKEN not in exported.out
    path = tmp_path / ("main.tf" if form == "terraform" else f"jobs.{form}")
    path.write_text(exported.out, encoding="utf-8")
    run = cli("logpush", "apply", str(path), "--zone", zone, "--json")
    assert run.code == 0, run.err
    assert [e["action"] for e in run.json()["jobs"]] == ["unchanged"]  # type: ignore[index]
    # A rotated credential is sent with the literal `${HOME}` kept.
    variable = "TF_VAR_x_header_authorization" if form == "terraform" else "LOGPUSH_X_HEADER_AUTHORIZATION"
    monkeypatch.setenv(variable, "ROTATED-TOKEN-0123")
    run = cli("logpush", "apply", str(path), "--zone", zone, "--json")
    assert run.code == 0, run.err
    assert stored(api, zone) == [literal.replace(TOKEN, "ROTATED-TOKEN-0123")]
    # The published schema calls a destination holding `{` no `uri`: the case is one.
    # Every other departure from the schema still fails the test.
    failures = [str(f) for f in traffic.unexpected(checker(), TRACKER.take(), forged=False)]
    assert all("${HOME}" in f and "is not a 'uri'" in f for f in failures), failures


def test_a_variable_set_to_the_empty_string_is_refused(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Item 5: how CI expands a secret it does not have; nothing is sent.
    zone = "0000000000000000000000000000c35d"
    logpush = api.client().zone(zone).logpush
    logpush.create_job(name="x", dataset="http_requests", destination_conf=HELD)
    path = tmp_path / "jobs.toml"
    path.write_text(cli("logpush", "export", "--zone", zone).out, encoding="utf-8")
    monkeypatch.setenv("LOGPUSH_X_HEADER_AUTHORIZATION", "")
    run = cli("logpush", "apply", str(path), "--zone", zone)
    assert run.code == 2, run.err
    assert "LOGPUSH_X_HEADER_AUTHORIZATION" in run.err and "empty string" in run.err, run.err
    assert stored(api, zone) == [HELD]
    referenced = HELD.replace(TOKEN, "${T}")
    empty = r"destination_conf: the variable T \(`\$\{T\}`\) is set to the empty string"
    with pytest.raises(InvalidInput, match=empty):
        logpush.ensure_job(name="x", dataset="http_requests", destination_conf=referenced, variables={"T": ""})
    assert stored(api, zone) == [HELD]


def test_a_delete_whose_answer_was_lost_is_done(escpush_emulator: Emulator) -> None:
    # Item 3: the job deleted, the answer lost, the retry meets 404: with delete_first the
    # replacement is created, and the plan says what happened.
    logpush = escpush_emulator.client().zone(ZONE).logpush
    old = logpush.create_job(name="old", dataset="http_requests", destination_conf=HELD)
    doc = {"jobs": [{"name": "new", "dataset": "http_requests", "destination_conf": HELD}]}
    escpush_emulator.fail_next(delay=0)  # the list of jobs: answered
    escpush_emulator.fail_next(drop_after_apply=True)  # the DELETE: applied, its answer lost
    plan = logpush.apply(doc, prune=True, delete_first=True)
    by_action = {e["action"]: e for e in plan["jobs"]}
    assert by_action["delete"]["done"] and by_action["create"]["done"], plan
    assert "its retry found the job gone" in by_action["delete"]["note"]
    assert [j.name for j in logpush.jobs()] == ["new"]
    assert old.id not in [j.id for j in logpush.jobs()]
