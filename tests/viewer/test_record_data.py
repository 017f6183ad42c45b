"""The viewer's Python side: reading records (complete, streamed, running, broken), the page
builder's escaping, export, and the local server."""

from __future__ import annotations

import base64
import gzip
import json
import urllib.error
import urllib.request

import pytest

from hexarena.core.errors import RecordError
from hexarena.core.frames import decode_frames
from hexarena.core.manager import play_match
from hexarena.viewer import export_html, load_view_data, page_html, serve

from .viewer_records import REPLY_WITH_MARKUP, write_synthetic


def test_hex_record_data_matches_the_match(records):
    data = load_view_data(records["hex"])
    result = json.loads((records["hex"] / "result.json").read_text())
    assert data["game"] == "hex" and data["roles"] == ["red", "blue"]
    assert len(data["steps"]) == result["moves"] + 1
    assert [s["step"] for s in data["steps"]] == list(range(result["moves"] + 1))
    moves = [e for e in data["log"] if e["event"] == "move"]
    assert [s["move"] for s in data["steps"][1:]] == [m["text"] for m in moves]
    assert data["log"][-1]["event"] == "end" and data["result"]["outcome"] == result["outcome"]
    assert data["warnings"] == []


def test_log_keeps_raw_replies_and_rejections(records):
    log = load_view_data(records["rejected"])["log"]
    rejected = [e for e in log if e["event"] == "attempt" and e["error"]]
    assert rejected[0]["error"] == "illegal" and "off the board" in rejected[0]["message"]
    assert rejected[0]["raw"].startswith("Let me play z9")
    assert any(REPLY_WITH_MARKUP in (e.get("raw") or "") for e in log)


def test_a_record_without_frames_is_replayed(records, tmp_path):
    config = json.loads((records["hex"] / "config.json").read_text())
    config["output"] = {"dir": str(tmp_path / "noframes"), "frames": False}
    play_match(config)
    replayed, recorded = load_view_data(tmp_path / "noframes"), load_view_data(records["hex"])
    assert replayed["steps"] == recorded["steps"] and "replaying" in replayed["warnings"][0]
    turns = tmp_path / "noframes" / "turns.jsonl"
    lines = turns.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('{"event":"move"'))
    lines[first] = lines[first].replace('"move":"', '"move":"z9', 1)  # an off-board cell
    turns.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"move 0 .* rejected on replay"):
        load_view_data(tmp_path / "noframes")


def test_streamed_gzip_and_bare_deltas_decode_like_wrapped_ones(tmp_path):
    wrapped = load_view_data(write_synthetic(tmp_path / "a", steps=5))
    bare = load_view_data(write_synthetic(tmp_path / "b", steps=5, gz=True, bare=True))
    assert [s["delta"] for s in bare["steps"]] == [s["delta"] for s in wrapped["steps"]]
    assert [s["step"] for s in bare["steps"]] == list(range(5))
    assert bare["result"] is None and bare["log"] == [] and bare["game"] == "synthetic"
    full = list(decode_frames(s["delta"] for s in bare["steps"]))
    assert len(full[-1]["cells"]) == 8 * 6


def test_a_gzip_stream_still_being_written_is_read_up_to_its_last_flush(tmp_path):
    lines = (
        (write_synthetic(tmp_path / "done", steps=4) / "frames.jsonl").read_text().splitlines(keepends=True)
    )
    (tmp_path / "live").mkdir()
    with gzip.open(tmp_path / "live" / "frames.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(lines[:3])
        fh.flush()  # the stream has no end yet, as while a recorder runs
        assert len(load_view_data(tmp_path / "live")["steps"]) == 2
        fh.write(lines[3][:50])
        fh.flush()
        data = load_view_data(tmp_path / "live")
        assert len(data["steps"]) == 2 and "truncated" in data["warnings"][0]
    (tmp_path / "live" / "frames.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(RecordError, match="not a gzip file"):
        load_view_data(tmp_path / "live")


def test_a_frames_file_can_be_opened_directly(tmp_path):
    rec = write_synthetic(tmp_path / "r", steps=3, gz=True)
    assert load_view_data(rec / "frames.jsonl.gz")["title"] == "r"
    named = (rec / "frames.jsonl.gz").rename(tmp_path / "game42.ndjson.gz")
    data = load_view_data(named)
    assert len(data["steps"]) == 3 and data["title"] == "game42.ndjson.gz"


def test_truncated_last_line_is_a_warning_but_a_corrupt_middle_line_an_error(tmp_path):
    rec = write_synthetic(tmp_path / "r", steps=4)
    frames = rec / "frames.jsonl"
    lines = frames.read_text().splitlines()
    frames.write_text("\n".join([*lines, lines[-1][:40]]) + "\n")
    data = load_view_data(rec)
    assert len(data["steps"]) == 4 and "truncated" in data["warnings"][0]
    frames.write_text("\n".join([lines[0], lines[1][:40], *lines[2:]]) + "\n")
    with pytest.raises(RecordError, match=r"frames.jsonl:2: corrupt"):
        load_view_data(rec)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no frames file .* and no final.json"),
        ("", "empty frames file"),
        ('{"format":"other"}\n', "not a hexarena-frames"),
        ('{"format":"hexarena-frames","version":1,"game":"x"}\n', "no frames after the header"),
        (
            '{"format":"hexarena-frames","version":1,"game":"x"}\n{"step":0,"delta":{}}\n',
            "needs a 'cells' list",
        ),
    ],
)
def test_broken_records_are_refused_with_a_reason(tmp_path, content, message):
    if content is not None:
        (tmp_path / "frames.jsonl").write_text(content)
    with pytest.raises(RecordError, match=message):
        load_view_data(tmp_path)
    with pytest.raises(RecordError):
        serve(tmp_path / "missing")


def test_corrupt_result_json_is_a_warning(records, tmp_path):
    rec = write_synthetic(tmp_path / "r", steps=2)
    (rec / "result.json").write_text("{")
    data = load_view_data(rec)
    assert data["result"] is None and "result.json" in data["warnings"][0]


def test_page_inlines_everything_and_cannot_be_broken_out_of(records, tmp_path):
    out = export_html(records["rejected"], tmp_path / "sub" / "replay.html")
    html = out.read_text()
    assert html.count("</script>") == 2  # the page's own two scripts; the reply's tag is packed away
    assert "/*__" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    start = html.index('base64">') + len('base64">')
    data = json.loads(gzip.decompress(base64.b64decode(html[start : html.index("</script>", start)])))
    assert data == load_view_data(records["rejected"])
    assert any(REPLY_WITH_MARKUP in (e.get("raw") or "") for e in data["log"])
    assert '<script id="hexarena-data" type="application/x-hexarena-gzip-base64"></script>' in page_html()


def test_server_serves_page_and_fresh_data(tmp_path):
    rec = write_synthetic(tmp_path / "r", steps=3)
    url, server = serve(rec)
    try:
        assert url.startswith("http://127.0.0.1:")
        page = urllib.request.urlopen(url).read().decode()
        assert "hexarena-data" in page
        request = urllib.request.Request(url + "data.json", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as reply:
            assert reply.headers["Content-Encoding"] == "gzip"
            assert len(json.loads(gzip.decompress(reply.read()))["steps"]) == 3
            etag = reply.headers["ETag"]
        with pytest.raises(urllib.error.HTTPError) as err:  # unchanged: 304, no body
            urllib.request.urlopen(urllib.request.Request(url + "data.json", headers={"If-None-Match": etag}))
        assert err.value.code == 304
        first = json.loads(urllib.request.urlopen(url + "data.json").read())
        assert len(first["steps"]) == 3
        write_synthetic(rec, steps=5)  # the match goes on: a reload shows the new steps
        assert len(json.loads(urllib.request.urlopen(url + "data.json").read())["steps"]) == 5
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url + "nope")
        assert err.value.code == 404
        with gzip.open(rec / "frames.jsonl.gz", "wt") as fh:
            fh.write("")
        (rec / "frames.jsonl").unlink()
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url + "data.json")
        assert err.value.code == 500 and "empty frames file" in err.value.read().decode()
    finally:
        server.shutdown()
        server.server_close()
