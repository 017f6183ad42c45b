"""The viewer servers and pages against hostile requests and records: a foreign ``Host`` (DNS
rebinding), a 300-character match id, clients that hang up, links out of a record folder, and
page data that tries to end its script element."""

from __future__ import annotations

import http.client
import socket
import struct
import time

import pytest
from typer.testing import CliRunner

from hexarena.arena import parse_arena, run_arena
from hexarena.cli import app
from hexarena.viewer import serve
from tests.core.test_cli import run_main

from .viewer_records import hex_record

NAME = "<!--<script>"


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    return hex_record(tmp_path_factory.mktemp("rec") / "hex", size=3)


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    config = {
        "name": "hostile",
        "players": [{"name": NAME, "type": "random"}, {"name": "random-b", "type": "random", "seed": 2}],
        "games": [{"name": "hex", "params": {"size": 3}}],
        "schedule": {"games_per_pairing": 1},
        "ratings": {"bootstrap": 10},
    }
    folder = tmp_path_factory.mktemp("arena")
    run_arena(parse_arena(config), config, folder)
    return folder


@pytest.fixture(params=["record", "arena"])
def server(request):
    _url, srv = serve(request.getfixturevalue(request.param))
    yield srv
    srv.shutdown()
    srv.server_close()


def get(srv, path: str, host: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    conn.request("GET", path, headers={"Host": host} if host else {})
    response = conn.getresponse()
    return response.status, response.read()


def test_only_local_host_names_are_answered(server):
    port = server.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "127.0.0.1"):
        assert get(server, "/", host)[0] == 200, host
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "localhost.evil", "[::1"):
        status, body = get(server, "/", host)
        assert status == 403 and b"not this machine" in body, host


def test_clients_that_hang_up_leave_no_traceback(server, capsys):
    for _ in range(5):
        sock = socket.create_connection(("127.0.0.1", server.server_address[1]))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, at once
        sock.close()
    assert get(server, "/")[0] == 200
    time.sleep(0.3)  # the hung-up requests' threads finish (no assert on time)
    assert "Traceback" not in capsys.readouterr().err


def test_a_300_character_match_id_is_not_found(arena):
    _url, srv = serve(arena)
    try:
        for match_id in ("a" * 300, "a" * 5000):
            assert get(srv, f"/match/{match_id}/data.json") == (404, b"no such match")
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_link_out_of_the_record_folder_is_refused(record, tmp_path, monkeypatch, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text('{"token": "SECRET-VALUE"}')
    rec = tmp_path / "rec"
    rec.mkdir()
    for f in record.iterdir():
        (rec / f.name).write_bytes(f.read_bytes())
    (rec / "config.json").unlink()
    (rec / "config.json").symlink_to(secret)
    out = tmp_path / "page.html"
    code, output = run_main(monkeypatch, capsys, "view", str(rec), "--export", str(out))
    assert code == 2 and "a link that leads out of the record folder" in output
    assert not out.exists()
    (rec / "config.json").unlink()
    (rec / "config.json").symlink_to(rec / "result.json")  # a link inside the folder is fine
    assert CliRunner().invoke(app, ["view", str(rec), "--export", str(out)]).exit_code == 0


def test_an_arena_export_writes_no_replay_through_a_link(arena, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    match = next(p for p in (arena / "matches").iterdir() if p.is_dir())
    (match / "replay.html").unlink(missing_ok=True)
    (match / "replay.html").symlink_to(victim)
    result = CliRunner().invoke(app, ["view", str(arena), "--export", str(tmp_path / "board.html")])
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "untouched" and not (match / "replay.html").is_symlink()


def test_page_data_cannot_end_its_script(page, arena, tmp_path):
    out = tmp_path / "board.html"
    assert CliRunner().invoke(app, ["view", str(arena), "--export", str(out)]).exit_code == 0
    data = out.read_text().split('<script id="lb-data" type="application/json">', 1)[1].split("</script>")[0]
    assert "<" not in data and NAME not in data
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(f"tr.player-row[data-player='{NAME}']").count() == 1
