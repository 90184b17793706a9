"""`envcheck matrix update` against a real local HTTP server (pytest-httpserver)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Optional

import pytest

from envcheck.matrix import (
    active_matrix_dir,
    bundled_dir,
    clear_cache,
    load_matrix,
    user_matrix_dir,
)
from envcheck.matrix import update as mupdate
from envcheck.matrix.load import DOMAINS
from tests.conftest import run_cli

pytestmark = pytest.mark.network

pytest_httpserver = pytest.importorskip("pytest_httpserver")
from werkzeug.wrappers import Request, Response  # noqa: E402 - after importorskip

MINI = Path(__file__).parents[1] / "fixtures" / "matrix-mini"


def bundle_files(data_version: str = "2027-01-15") -> dict[str, bytes]:
    out = {}
    for domain in DOMAINS:  # every domain: the fixture's rows, empty files for the rest
        out[f"{domain}.toml"] = f'schema_version = 1\ndata_version = "{data_version}"\n'.encode()
    for path in sorted(MINI.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        out[path.name] = text.replace(
            text.split("data_version", 1)[1].split("\n", 1)[0],
            f' = "{data_version}"',
            1,
        ).encode()
    return out


def manifest_for(files: dict[str, bytes], **override: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema": "envcheck.matrix-bundle/1",
        "schema_version": 1,
        "data_version": "2027-01-15",
        "files": {
            name: {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
            for name, body in files.items()
        },
    }
    doc.update(override)
    return doc


def serve(
    httpserver: Any,
    files: dict[str, bytes],
    manifest: Optional[dict[str, Any]] = None,
    served: Optional[dict[str, bytes]] = None,
) -> str:
    """Serve a bundle under /m/; ``served`` replaces bodies after the manifest is made."""
    manifest = manifest_for(files) if manifest is None else manifest
    httpserver.expect_request("/m/manifest.json").respond_with_json(manifest)
    for name, body in {**files, **(served or {})}.items():
        httpserver.expect_request(f"/m/{name}").respond_with_data(
            body, content_type="application/toml"
        )
    return str(httpserver.url_for("/m/manifest.json"))


@pytest.fixture(autouse=True)
def _fresh() -> Any:
    clear_cache()
    yield
    clear_cache()


def installed_version() -> Optional[str]:
    target = user_matrix_dir()
    if not (target / "cuda_driver.toml").is_file():
        return None
    return load_matrix(target).data_version


def leftovers() -> list[str]:
    parent = user_matrix_dir().parent
    if not parent.exists():
        return []
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_good_bundle_is_installed_and_becomes_active(httpserver: Any) -> None:
    url = serve(httpserver, bundle_files())
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert code == 0, err
    assert "installed matrix data 2027-01-15" in out
    target = user_matrix_dir()
    assert target.is_symlink()
    assert (target / "manifest.json").is_file()
    assert active_matrix_dir() == target.resolve()  # one bundle, resolved once
    assert installed_version() == "2027-01-15"
    assert leftovers() == []
    code, out, _ = run_cli("matrix", "show", "cuda_driver", "--json")
    assert json.loads(out)["data_version"] == "2027-01-15"
    # ENVCHECK_MATRIX=bundled and --bundled still reach the shipped data.
    code, out, _ = run_cli("matrix", "show", "cuda_driver", "--json", "--bundled")
    assert json.loads(out)["location"] != str(target)


def test_second_update_replaces_the_first_and_cleans_up(httpserver: Any) -> None:
    url = serve(httpserver, bundle_files())
    assert run_cli("matrix", "update", "--url", url).exit_code == 0
    first = user_matrix_dir().resolve()
    httpserver.clear()
    files = bundle_files("2027-02-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2027-02-01"))
    code, out, _ = run_cli("matrix", "update", "--url", url, "--json")
    assert code == 0
    doc = json.loads(out)
    assert (doc["data_version"], doc["previous"]) == ("2027-02-01", "2027-01-15")
    assert not first.exists()
    assert installed_version() == "2027-02-01"


def install_good(httpserver: Any) -> None:
    url = serve(httpserver, bundle_files())
    assert run_cli("matrix", "update", "--url", url).exit_code == 0
    httpserver.clear()


def assert_untouched(code: int, out: str, err: str, message: str) -> None:
    assert code == 2
    assert out == ""
    assert message in err, err
    assert err.count("\n") == 1
    assert installed_version() == "2027-01-15"
    assert leftovers() == []


def test_bad_sha_never_replaces_a_working_matrix(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    tampered = b"S" + files["gpus.toml"][1:]  # same size, different bytes
    url = serve(httpserver, files, served={"gpus.toml": tampered})
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "gpus.toml: sha256")


def test_truncated_file_is_refused(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    url = serve(httpserver, files, served={"cuda_driver.toml": files["cuda_driver.toml"][:100]})
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "the manifest says")


def test_oversize_file_is_refused(httpserver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    manifest = manifest_for(files)
    for entry in manifest["files"].values():
        entry.pop("size")
    monkeypatch.setattr(mupdate, "MAX_FILE_BYTES", 4096)
    big = files["gpus.toml"] + b"#" * 10_000
    url = serve(httpserver, files, manifest, served={"gpus.toml": big})
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "4096-byte limit")


def test_invalid_toml_inside_a_verified_bundle_is_refused(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    files["cuda_driver.toml"] += b'\n[[release]]\nversion = "13.9\n'
    url = serve(httpserver, files)
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "downloaded matrix is invalid: cuda_driver.toml:")


def test_data_failing_validation_is_refused(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    files["gpus.toml"] = files["gpus.toml"].replace(b"source = ", b"sauce = ", 1)
    url = serve(httpserver, files)
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "gpus.toml:")


def test_404_manifest(httpserver: Any) -> None:
    install_good(httpserver)
    httpserver.expect_request("/m/manifest.json").respond_with_data("nope", status=404)
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert_untouched(code, out, err, "HTTP 404")


def test_404_file(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    manifest = manifest_for(files)
    httpserver.expect_request("/m/manifest.json").respond_with_json(manifest)
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert_untouched(code, out, err, "HTTP 500")  # pytest-httpserver: no handler → 500


def test_timeout(httpserver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    install_good(httpserver)
    monkeypatch.setattr(mupdate, "TIMEOUT", (2.0, 0.3))

    def slow(request: Request) -> Response:
        time.sleep(1.0)
        return Response("{}", content_type="application/json")

    httpserver.expect_request("/m/manifest.json").respond_with_handler(slow)
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert_untouched(code, out, err, "timed out")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"schema_version": 2}, "upgrade envcheck"),
        ({"schema": "something/1"}, "not an envcheck matrix manifest"),
        ({"data_version": "soon"}, "data_version must be a date"),
        ({"files": {"../evil.toml": {"sha256": "0" * 64}}}, "unexpected file '../evil.toml'"),
        ({"files": {"gpus.toml": {"sha256": "xyz"}}}, "not 64 hex digits"),
    ],
)
def test_bad_manifest(httpserver: Any, override: dict[str, Any], message: str) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    manifest = manifest_for(files)
    manifest.update(override)
    url = serve(httpserver, files, manifest)
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, message)


def test_manifest_that_is_not_json(httpserver: Any) -> None:
    install_good(httpserver)
    httpserver.expect_request("/m/manifest.json").respond_with_data("<html>")
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert_untouched(code, out, err, "manifest is not valid JSON")


def test_bundled_removes_the_update(httpserver: Any) -> None:
    install_good(httpserver)
    code, out, _ = run_cli("matrix", "update", "--bundled")
    assert code == 0
    assert "removed the installed update" in out
    assert installed_version() is None
    assert not user_matrix_dir().exists()
    assert active_matrix_dir() != user_matrix_dir()
    assert list(user_matrix_dir().parent.iterdir()) == []
    code, out, _ = run_cli("matrix", "update", "--bundled")
    assert "no update installed" in out


def test_other_url_schemes_are_refused() -> None:
    code, out, err = run_cli("matrix", "update", "--url", "ftp://example.org/manifest.json")
    assert code == 2
    assert "only http(s) and file URLs" in err
    code, out, err = run_cli("matrix", "update", "--url", "file:///etc/passwd")
    assert code == 2
    assert "manifest is not valid JSON" in err or "not an envcheck matrix manifest" in err


def test_make_manifest_round_trip(tmp_path: Path) -> None:
    for name, body in bundle_files().items():
        (tmp_path / name).write_bytes(body)
    doc = mupdate.make_manifest(tmp_path, "2027-01-15")
    manifest = mupdate.parse_manifest(json.loads(json.dumps(doc)), "x")
    assert {f.name for f in manifest.files} == {f"{d}.toml" for d in DOMAINS}


# -- issue 16: one bundle per reader, every domain, deadline, downgrade, leftovers


def test_bundle_missing_a_domain_is_refused(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    del files["keras.toml"]
    url = serve(httpserver, files, manifest_for(files, data_version="2027-03-01"))
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "the bundle lacks keras.toml")


def test_a_dripping_server_is_cut_off_at_the_deadline(
    httpserver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import http.server
    import threading

    install_good(httpserver)
    monkeypatch.setattr(mupdate, "DEADLINE", 1.0)

    class Drip(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.3)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        url = f"http://127.0.0.1:{server.server_address[1]}/manifest.json"
        code, out, err = run_cli("matrix", "update", "--url", url)
        assert time.monotonic() - start < 5
    finally:
        server.shutdown()
        server.server_close()
    assert_untouched(code, out, err, "did not finish within 1s; cut off")


def test_downgrade_needs_allow_downgrade(httpserver: Any) -> None:
    install_good(httpserver)
    files = bundle_files("2026-12-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2026-12-01"))
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, "older than 2027-01-15 (the installed update)")
    assert "--allow-downgrade" in err
    code, out, err = run_cli("matrix", "update", "--url", url, "--allow-downgrade")
    assert code == 0, err
    assert installed_version() == "2026-12-01"


def test_older_than_the_shipped_matrix_is_a_downgrade(httpserver: Any) -> None:
    files = bundle_files("2001-01-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2001-01-01"))
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert code == 2
    assert "the matrix shipped with envcheck" in err
    assert installed_version() is None


def test_leftovers_of_a_killed_update_are_cleaned_on_the_next_run(httpserver: Any) -> None:
    install_good(httpserver)
    parent = user_matrix_dir().parent
    dead = 2**22 + 12345  # above pid_max's default: no such process
    stale = [
        parent / f".incoming-{dead}-abc123",
        parent / f".current.old-{dead}",
    ]
    for path in stale:
        path.mkdir()
        (path / "cuda_driver.toml").write_text("x")
    link = parent / f".current.{dead}.link"
    link.symlink_to("nowhere")
    live = parent / f".incoming-{os.getpid()}-mine"
    live.mkdir()
    code, out, _ = run_cli("matrix", "update", "--bundled")
    assert code == 0
    assert [p.name for p in [*stale, link] if p.exists() or p.is_symlink()] == []
    assert live.exists()  # a running update's staging is not touched
    live.rmdir()


def test_connection_errors_are_one_plain_line() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    code, out, err = run_cli("matrix", "update", "--url", f"http://127.0.0.1:{port}/manifest.json")
    assert code == 2
    assert err.count("\n") == 1
    assert "cannot connect" in err
    for noise in ("object at 0x", "HTTPConnectionPool", "Caused by", "NewConnectionError"):
        assert noise not in err, err


def test_no_default_url_says_so_plainly() -> None:
    code, out, err = run_cli("matrix", "update")
    assert code == 2
    assert err.count("\n") == 1
    assert "no matrix bundle is published" in err
    assert "--bundled" in err and "file://" in err


def test_a_bundle_from_a_file_url(tmp_path: Path) -> None:
    files = bundle_files()
    for name, body in files.items():
        (tmp_path / name).write_bytes(body)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest_for(files)))
    code, out, err = run_cli("matrix", "update", "--url", (tmp_path / "manifest.json").as_uri())
    assert code == 0, err
    assert installed_version() == "2027-01-15"


def test_a_reader_reads_every_file_from_the_one_bundle_it_resolved(httpserver: Any) -> None:
    install_good(httpserver)
    first = active_matrix_dir()
    assert first == user_matrix_dir().resolve()
    files = bundle_files("2027-02-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2027-02-01"))
    # An update swaps `current` (and removes the old bundle) under this process.
    assert mupdate.update_matrix(url, user_matrix_dir()).data_version == "2027-02-01"
    assert not first.exists()
    assert active_matrix_dir() == first  # resolved once per process...
    assert load_matrix().data_version == "2027-02-01"  # ...re-resolved once it vanished
    assert active_matrix_dir() == user_matrix_dir().resolve()


def test_loads_during_updates_and_removals_never_fail_or_mix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from envcheck.matrix.cache import ENV_NO_CACHE

    monkeypatch.setenv(ENV_NO_CACHE, "1")  # read every file every time
    urls = []
    for version in ("2027-01-15", "2027-02-01"):
        files = bundle_files(version)
        folder = tmp_path / version
        folder.mkdir()
        for name, body in files.items():
            (folder / name).write_bytes(body)
        manifest = manifest_for(files, data_version=version)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        urls.append((folder / "manifest.json").as_uri())
    target = user_matrix_dir()
    stop = threading.Event()

    failures: list[BaseException] = []
    rounds: list[int] = []

    def churn() -> None:
        i = 0
        try:
            while not stop.is_set():
                mupdate.update_matrix(urls[i % 2], target, allow_downgrade=True)
                if i % 3 == 2:
                    mupdate.remove_update(target)
                i += 1
                rounds.append(i)
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)
            stop.set()

    worker = threading.Thread(target=churn)
    worker.start()
    seen = set()
    try:
        # At least 3 s of churn, longer on a loaded machine (a load with no cache
        # can take a second) until the loads have seen an update land.
        start = time.monotonic()
        while not failures and (
            time.monotonic() - start < 3.0 or (len(seen) < 2 and time.monotonic() - start < 60.0)
        ):
            clear_cache()
            matrix = load_matrix()
            if matrix.location != str(bundled_dir()):
                # One bundle per load: every file carries the same data version.
                assert len(set(matrix.file_versions.values())) == 1, matrix.file_versions
            seen.add(matrix.data_version)
    finally:
        stop.set()
        worker.join()
    assert not failures, failures
    assert len(seen) >= 2, f"{len(rounds)} updates; loads saw only {seen}"


# --------------------------------------------------------------------------- the input gate


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(b"[" * 200_000, "nested more than", id="nested-200000-deep"),
        pytest.param(
            b'{"schema": "envcheck.matrix-bundle/1", "schema_version": ' + b"7" * 5000 + b"}",
            "more than 200 digits",
            id="5000-digit-integer",
        ),
        pytest.param(b'{"a": "' + b"x" * (50 * 1024 * 1024) + b'"}', "limit", id="50-MB"),
        pytest.param(b"\xff\xfe{\x00}", "not valid", id="bad-encoding"),
    ],
)
def test_a_hostile_manifest_is_one_plain_line(httpserver: Any, body: bytes, message: str) -> None:
    install_good(httpserver)
    httpserver.expect_request("/m/manifest.json").respond_with_data(
        body, content_type="application/json"
    )
    start = time.monotonic()
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert time.monotonic() - start < 10
    assert_untouched(code, out, err, message)
    assert "Traceback" not in err and "internal error" not in err


def test_a_50_mb_manifest_without_a_length_is_cut_off(httpserver: Any) -> None:
    """Streamed without Content-Length: refused once the cap is passed."""
    install_good(httpserver)

    def stream(_request: Request) -> Response:
        def body() -> Any:
            chunk = b" " * (1024 * 1024)
            for _ in range(50):
                yield chunk

        return Response(body(), content_type="application/json")

    httpserver.expect_request("/m/manifest.json").respond_with_handler(stream)
    code, out, err = run_cli(
        "matrix", "update", "--url", str(httpserver.url_for("/m/manifest.json"))
    )
    assert_untouched(code, out, err, "limit")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("x = " + "[" * 1000 + "]" * 1000 + "\n", "nested more than", id="deep-toml"),
        pytest.param("x = " + "9" * 5000 + "\n", "more than 200 digits", id="5000-digits"),
    ],
)
def test_hostile_bundle_files_are_one_plain_line(httpserver: Any, text: str, message: str) -> None:
    """A file whose sha256 matches (the publisher is hostile, or compromised) still
    goes through the gate when the bundle is validated."""
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    files["gpus.toml"] = files["gpus.toml"] + text.encode()
    url = serve(httpserver, files)
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert_untouched(code, out, err, message)
    assert "gpus.toml" in err


def test_an_installed_manifest_that_is_hostile_reads_as_no_version(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("[" * 200_000)
    assert mupdate.installed_version(tmp_path) is None
    (tmp_path / "manifest.json").write_text('{"data_version": ' + "1" * 5000 + "}")
    assert mupdate.installed_version(tmp_path) is None


def test_a_server_closing_mid_body_is_one_line(httpserver: Any) -> None:
    """Issue 26 item 4: a Content-Length, half the body, then the connection closes
    (urllib3's ProtocolError escaped as an internal error)."""
    import http.server
    import threading

    install_good(httpserver)

    class Cut(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"{" + b" " * 500)
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Cut)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/manifest.json"
        code, out, err = run_cli("matrix", "update", "--url", url)
    finally:
        server.shutdown()
        server.server_close()
    assert "internal error" not in err
    assert_untouched(code, out, err, "manifest.json")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes read-only folders"
)
def test_a_cache_folder_that_cannot_be_written_is_one_line(httpserver: Any) -> None:
    """Issue 26 item 5: a non-writable cache folder gave internal error: PermissionError."""
    install_good(httpserver)
    parent = user_matrix_dir().parent
    files = bundle_files("2027-03-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2027-03-01"))
    mode = parent.stat().st_mode
    parent.chmod(0o500)
    try:
        code, out, err = run_cli("matrix", "update", "--url", url)
    finally:
        parent.chmod(mode)
    assert "internal error" not in err
    assert_untouched(code, out, err, "cannot write the matrix cache")


def test_an_os_error_while_installing_is_one_line(
    httpserver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same as root (who writes read-only folders): the write itself refused."""
    install_good(httpserver)
    files = bundle_files("2027-03-01")
    url = serve(httpserver, files, manifest_for(files, data_version="2027-03-01"))

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(user_matrix_dir().parent))

    monkeypatch.setattr(mupdate.tempfile, "mkdtemp", refuse)
    code, out, err = run_cli("matrix", "update", "--url", url)
    assert "internal error" not in err
    assert_untouched(code, out, err, "cannot write the matrix cache")
