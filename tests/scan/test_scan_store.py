"""Filter.scan on object storage: moto's S3 server on loopback (listing, streaming, thousands
of objects, r2:// at a given endpoint, errors with the object's name and the counts so far,
credentials never shown), and gs:// / az:// without credentials (a clear error, no network)."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import escpush
from escpush import ScanError
from escpush.cli import main

SECRET = "s3cr3t-KEY-never-shown-0123456789"
KEY_ID = "AKIAESCPUSHTESTKEY01"
FILTER = escpush.field("EdgeResponseStatus").ge(500)
CREDENTIAL_VARS = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ENDPOINT",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "R2_ACCOUNT_ID",
    "R2_ENDPOINT",
    "R2_ACCESS_KEY_ID",
    "R2_SECRET_ACCESS_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_SERVICE_ACCOUNT",
    "GOOGLE_SERVICE_ACCOUNT_PATH",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
    "SERVICE_ACCOUNT",
    "AZURE_STORAGE_ACCOUNT_NAME",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_ACCESS_KEY",
    "AZURE_STORAGE_SAS_KEY",
    "AZURE_STORAGE_TOKEN",
    "AZURE_STORAGE_CLIENT_SECRET",
    "AZURE_CLIENT_SECRET",
    "AZURE_FEDERATED_TOKEN_FILE",
    "AZURE_STORAGE_USE_EMULATOR",
]


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3(moto_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """A boto3 client of the moto server, with the environment set for escpush too."""
    import boto3

    for var in CREDENTIAL_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no gcloud application-default credentials
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    client = boto3.client(
        "s3",
        endpoint_url=moto_url,
        aws_access_key_id=KEY_ID,
        aws_secret_access_key=SECRET,
        region_name="us-east-1",
    )
    yield client
    for bucket in client.list_buckets()["Buckets"]:
        paginator = client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=bucket["Name"]):
            keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
            if keys:
                client.delete_objects(Bucket=bucket["Name"], Delete={"Objects": keys})
        client.delete_bucket(Bucket=bucket["Name"])


def batch(i: int, lines: int = 10) -> bytes:
    """Log lines: every third has status 503."""
    return "".join(
        json.dumps({"EdgeResponseStatus": 503 if (i + n) % 3 == 0 else 200, "RayID": f"{i}-{n}"}) + "\n"
        for n in range(lines)
    ).encode()


def name(day: int, minute: int) -> str:
    start = f"202611{day:02d}T00{minute:02d}00Z"
    end = f"202611{day:02d}T00{minute:02d}30Z"
    return f"202611{day:02d}/{start}_{end}_{minute:08x}.log.gz"


def put_logs(s3: Any, bucket: str = "logs") -> dict[str, bytes]:
    """Log-push batches in two date folders (plus files a destination also holds)."""
    s3.create_bucket(Bucket=bucket)
    objects = {}
    for day in (22, 23):
        for minute in range(4):
            data = batch(day * 10 + minute)
            key = f"http/{name(day, minute)}"
            s3.put_object(Bucket=bucket, Key=key, Body=gzip.compress(data))
            objects[key] = data
    s3.put_object(Bucket=bucket, Key="http/ownership-challenge-0123abcd.txt", Body=b"challenge")
    s3.put_object(Bucket=bucket, Key="other/x.log.gz", Body=gzip.compress(batch(99)))
    return objects


def expected(objects: dict[str, bytes]) -> tuple[int, int]:
    lines = [line for data in objects.values() for line in data.decode().splitlines()]
    return len(lines), sum('"EdgeResponseStatus": 503' in line for line in lines)


def test_a_prefix_is_listed_sorted_and_streamed(s3: Any, tmp_path: Path) -> None:
    objects = put_logs(s3)
    r = FILTER.scan("s3://logs/http/")
    assert (r.total, r.matched) == expected(objects)
    assert [p.source for p in r.per_input] == [f"s3://logs/{k}" for k in sorted(objects)]
    assert r.bytes == sum(len(d) for d in objects.values())
    for name_ in ("total", "matched", "bytes", "matched_bytes"):
        assert sum(getattr(p, name_) for p in r.per_input) == getattr(r, name_)
    # The same lines as the files on disk, in the same order.
    for key, data in objects.items():
        local = tmp_path / key
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(gzip.compress(data))
    out_s3, out_local = tmp_path / "s3.ndjson", tmp_path / "local.ndjson"
    FILTER.select("s3://logs/http/", out_s3)
    FILTER.select(tmp_path / "http", out_local)
    assert out_s3.read_bytes() == out_local.read_bytes() != b""
    # One object by its key; a glob over the keys.
    one = sorted(objects)[0]
    assert FILTER.scan(f"s3://logs/{one}").total == 10
    assert len(FILTER.scan("s3://logs/http/2026112?/*_*_00000001.log.gz").per_input) == 2


def test_time_range_picks_objects_by_name(s3: Any) -> None:
    put_logs(s3)
    r = FILTER.scan("s3://logs/http/", since="2026-11-22T00:01:00Z", until="2026-11-23T00:01:00Z")
    assert [p.source.rsplit("/", 1)[1][:16] for p in r.per_input] == [
        "20261122T000100Z",
        "20261122T000200Z",
        "20261122T000300Z",
        "20261123T000000Z",
    ]


def test_time_range_skips_date_folders_without_listing_them(s3: Any) -> None:
    objects = put_logs(s3)
    # Not a log-push name: a scan that listed this folder would stop on it ("no time range").
    s3.put_object(Bucket="logs", Key="http/20261101/old-export.log.gz", Body=gzip.compress(batch(0)))
    with pytest.raises(ScanError, match=r"old-export\.log\.gz`: --since/--until pick files"):
        FILTER.scan("s3://logs/http/", since="2026-10-01")
    r = FILTER.scan("s3://logs/http/", since="2026-11-23")
    assert [p.source for p in r.per_input] == [f"s3://logs/{k}" for k in sorted(objects) if "/20261123/" in k]
    nothing = FILTER.scan("s3://logs/http/", since="2027-01-01")
    assert (nothing.total, nothing.per_input) == (0, [])


def test_r2_is_s3_at_the_accounts_endpoint(s3: Any, moto_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = put_logs(s3)
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    with pytest.raises(ScanError, match="R2_ACCOUNT_ID"):
        FILTER.scan("r2://logs/http/")
    monkeypatch.setenv("R2_ENDPOINT", moto_url)
    assert (FILTER.scan("r2://logs/http/").total, FILTER.scan("r2://logs/http/").matched) == expected(objects)


def test_thousands_of_objects(s3: Any) -> None:
    s3.create_bucket(Bucket="many")
    body = gzip.compress(b'{"EdgeResponseStatus":503}\n')
    for i in range(2000):
        s3.put_object(Bucket="many", Key=f"d/{i:05d}.log.gz", Body=body)
    r = FILTER.scan("s3://many/d/")
    assert (r.total, r.matched, len(r.per_input)) == (2000, 2000, 2000)
    assert r.per_input[-1].source == "s3://many/d/01999.log.gz"


def check_error(err: ScanError, *parts: str) -> None:
    text = str(err)
    for part in parts:
        assert part in text, (part, text)
    assert SECRET not in text and SECRET not in repr(err)


def test_missing_bucket_and_nothing_to_read(s3: Any) -> None:
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://no-such-bucket/logs/")
    check_error(info.value, "s3://no-such-bucket/logs/", "cannot list")
    s3.create_bucket(Bucket="empty")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://empty/")
    check_error(info.value, "s3://empty/", "no log objects")


def test_wrong_credentials(s3: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import moto.settings

    put_logs(s3)
    before = moto.settings.INITIAL_NO_AUTH_ACTION_COUNT
    moto.settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # moto now checks keys: ours are unknown to it
    try:
        with pytest.raises(ScanError) as info:
            FILTER.scan("s3://logs/http/")
        code = main(["filter", "scan", FILTER.to_json(), "s3://logs/http/"])
    finally:
        moto.settings.INITIAL_NO_AUTH_ACTION_COUNT = before
    check_error(info.value, "s3://logs/http/", "cannot list", "InvalidAccessKeyId")
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and "s3://logs/http/" in err and SECRET not in err


def test_missing_credentials_say_what_to_set(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://logs/")
    check_error(info.value, "no AWS credentials", "AWS_SECRET_ACCESS_KEY")


def test_corrupt_and_non_gzip_objects_name_the_object_and_the_counts(s3: Any) -> None:
    s3.create_bucket(Bucket="bad")
    s3.put_object(Bucket="bad", Key="a/1.log.gz", Body=gzip.compress(batch(0, 30)))
    s3.put_object(Bucket="bad", Key="a/2.log.gz", Body=gzip.compress(batch(1, 3000))[:500])
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://bad/a/")
    check_error(info.value, "s3://bad/a/2.log.gz", "not valid gzip data", "counts so far: 1 of 2 inputs read in full")
    partial = info.value.partial  # type: ignore[attr-defined]
    assert partial.per_input[0].total == 30 and partial.per_input[0].source == "s3://bad/a/1.log.gz"
    assert info.value.path == "s3://bad/a/2.log.gz"
    s3.put_object(Bucket="bad", Key="b/1.log.gz", Body=batch(0))
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://bad/b/")
    check_error(info.value, "s3://bad/b/1.log.gz", "ends in .gz but the data does not start like gzip")


def test_an_object_deleted_during_the_scan(s3: Any) -> None:
    s3.create_bucket(Bucket="gone")
    # The first object is large (40 MB of NDJSON in 100 gzip members) so that the scan is
    # still in it when the progress callback deletes the last one, which is not fetched yet.
    member = gzip.compress(batch(0, 1) * 8000, compresslevel=1)
    s3.put_object(Bucket="gone", Key="l/00.log.gz", Body=member * 100)
    for i in range(1, 10):
        s3.put_object(Bucket="gone", Key=f"l/{i:02d}.log.gz", Body=gzip.compress(batch(i)))
    deleted = []

    def delete_last(done: int, lines: int) -> None:
        if not deleted:
            s3.delete_object(Bucket="gone", Key="l/09.log.gz")
            deleted.append(lines)

    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://gone/l/", progress=delete_last, threads=1)
    assert deleted and deleted[0] < 800_000, "the callback ran after the scan"
    check_error(info.value, "s3://gone/l/09.log.gz", "counts so far: 9 of 10 inputs read in full, 800,080 lines")


def test_gcs_and_azure_without_credentials_fail_at_once(s3: Any) -> None:
    with pytest.raises(ScanError) as info:
        FILTER.scan("gs://bucket/logs/")
    check_error(info.value, "gs://bucket/logs/", "no Google Cloud credentials", "GOOGLE_APPLICATION_CREDENTIALS")
    with pytest.raises(ScanError) as info:
        FILTER.scan("az://container/logs/")
    check_error(info.value, "az://container/logs/", "AZURE_STORAGE_ACCOUNT_NAME")
    with pytest.raises(ScanError) as info:
        FILTER.scan("gs:///logs/")
    check_error(info.value, "names no bucket")
    with pytest.raises(ScanError) as info:
        FILTER.scan("ftp://host/logs/")
    check_error(info.value, "not an object store escpush reads")


# -- AWS profiles: only AWS_PROFILE set, files written here, read by the AWS SDK's provider ----


@pytest.fixture
def profile_env(s3: Any, moto_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Logs in moto, an IAM user that moto checks requests against (auth on), and an
    environment with no AWS key: the user's keys are for the profiles to give. Yields them."""
    import boto3
    import moto.settings

    counts = expected(put_logs(s3))
    user = f"scanner-{tmp_path.name}"  # moto's IAM outlives a test
    iam = boto3.client(
        "iam", endpoint_url=moto_url, aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET, region_name="us-east-1"
    )
    iam.create_user(UserName=user)
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    iam.put_user_policy(UserName=user, PolicyName="read", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=user)["AccessKey"]
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"):
        monkeypatch.delenv(var)
    aws = tmp_path / "aws"
    aws.mkdir()
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(aws / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(aws / "config"))
    before = moto.settings.INITIAL_NO_AUTH_ACTION_COUNT
    moto.settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # moto checks every request's signature and user
    try:
        yield {"key_id": key["AccessKeyId"], "secret": key["SecretAccessKey"], "dir": str(aws), "counts": counts}
    finally:
        moto.settings.INITIAL_NO_AUTH_ACTION_COUNT = before


def _write(path: str, text: str) -> None:
    Path(path).write_text(text, encoding="utf-8")


def test_s3_scan_with_only_aws_profile_set(
    profile_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    aws = profile_env["dir"]
    _write(
        f"{aws}/credentials",
        f"[default]\naws_access_key_id = AKIANOTTHEONE000000\naws_secret_access_key = wrong-default-secret-000\n\n"
        f"[dev]\naws_access_key_id = {profile_env['key_id']}\naws_secret_access_key = {profile_env['secret']}\n",
    )
    _write(f"{aws}/config", "[profile dev]\nregion = us-east-1\n")
    monkeypatch.setenv("AWS_PROFILE", "dev")
    result = FILTER.scan("s3://logs/http/")
    assert (result.total, result.matched) == profile_env["counts"]
    assert main(["filter", "scan", FILTER.to_json(), "s3://logs/http/", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] == profile_env["counts"][1]
    # The default profile's keys are not moto's user's: refused, and no secret shown.
    monkeypatch.delenv("AWS_PROFILE")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://logs/http/")
    check_error(info.value, "s3://logs/http/", "InvalidAccessKeyId")
    assert "wrong-default-secret-000" not in str(info.value)


def test_credential_process_runs_once_per_scan(profile_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    aws = profile_env["dir"]
    runs = Path(aws) / "runs"
    script = Path(aws) / "creds.py"
    answer = {
        "Version": 1,
        "AccessKeyId": profile_env["key_id"],
        "SecretAccessKey": profile_env["secret"],
        "Expiration": "2999-01-01T00:00:00Z",
    }
    _write(
        str(script),
        f"import json\nwith open({str(runs)!r}, 'a') as f:\n    f.write('x')\nprint(json.dumps({answer!r}))\n",
    )
    _write(f"{aws}/config", f"[profile tool]\nregion = us-east-1\ncredential_process = {sys.executable} {script}\n")
    monkeypatch.setenv("AWS_PROFILE", "tool")
    result = FILTER.scan("s3://logs/http/")
    assert (result.total, result.matched) == profile_env["counts"]
    assert runs.read_text() == "x"  # 8 objects, one run of the process


def test_a_profile_without_credentials_names_it_and_shows_no_secret(
    profile_env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    aws = profile_env["dir"]
    script = Path(aws) / "fails.py"
    _write(str(script), f"import sys\nprint('token {profile_env['secret']} expired', file=sys.stderr)\nsys.exit(3)\n")
    _write(f"{aws}/config", f"[profile broken]\ncredential_process = {sys.executable} {script}\n")
    monkeypatch.setenv("AWS_PROFILE", "nosuch")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://logs/http/")
    check_error(info.value, "s3://logs/http/", "profile `nosuch`")
    monkeypatch.setenv("AWS_PROFILE", "broken")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://logs/http/")
    check_error(info.value, "s3://logs/http/", "profile `broken`")
    assert profile_env["secret"] not in str(info.value), str(info.value)


def test_azure_uses_the_azure_cli_login(s3: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No Azure keys, `az` installed: its token (`az account get-access-token`) signs the
    requests; here a stand-in `az` and a loopback server that records what it is sent."""
    import http.server
    import threading

    token = "az-cli-token-never-shown-0123456789"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "az-ran"
    answer = json.dumps({"accessToken": token, "expiresOn": "2999-01-01 00:00:00.000000", "tokenType": "Bearer"})
    az = bin_dir / "az"
    az.write_text(f"#!/bin/sh\necho \"$@\" > {ran}\necho '{answer}'\n", encoding="utf-8")
    az.chmod(0o755)
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            body = "<?xml version='1.0'?><Error><Code>AuthorizationFailure</Code><Message>not allowed</Message></Error>"
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
        monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", "account")
        monkeypatch.setenv("AZURE_STORAGE_ENDPOINT", f"http://127.0.0.1:{server.server_port}/account")
        with pytest.raises(ScanError) as info:
            FILTER.scan("az://container/logs/")
    finally:
        server.shutdown()
        server.server_close()
    assert "get-access-token" in ran.read_text()
    assert seen and seen[0] == f"Bearer {token}"
    check_error(info.value, "az://container/logs/", "AuthorizationFailure")
    assert token not in str(info.value)
    # Without `az` on PATH, the error says how to log in.
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ScanError) as info:
        FILTER.scan("az://container/logs/")
    check_error(info.value, "no Azure credentials", "az login")


def test_an_endpoint_password_is_never_shown(
    s3: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 33, item 8: a password in AWS_ENDPOINT_URL (`http://user:PW@host`), where nothing
    # answers, and a query token, never appear in the error, in Python or on the command line.
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    password = "PW-endpoint-s3cr3t-42"
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://minio:{password}@127.0.0.1:{port}/?tok=qu3ry-t0ken-42")
    with pytest.raises(ScanError) as info:
        FILTER.scan("s3://logs/http/")
    code = main(["filter", "scan", FILTER.to_json(), "s3://logs/http/"])
    out, err = capsys.readouterr()
    shown = f"{info.value}\n{info.value!r}\n{out}\n{err}"
    assert code == 2
    assert password not in shown and "qu3ry-t0ken-42" not in shown, shown
