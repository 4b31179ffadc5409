"""A typed client generated from a running Door's /openapi.json by a stock generator (openapi-python-client,
pinned in the test extra) runs the door's evening, docs/examples/door_flow.py, through the client alone;
the generated package and the script pass mypy --strict."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import requests
from helpers import DOORAPP, served

ROOT = Path(__file__).resolve().parents[1]
FLOW = ROOT / "docs" / "examples" / "door_flow.py"
BIN = Path(sys.executable).parent  # the venv's openapi-python-client, mypy and ruff (the generator runs it)


def run(*command, cwd):
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": f"{BIN}:/usr/bin:/bin", "PYTHONPATH": str(cwd), "HOME": str(cwd)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_generated_python_client_runs_the_door_and_passes_mypy_strict(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path / "data") as door:
        document = tmp_path / "openapi.json"
        document.write_bytes(requests.get(f"{door.url}/openapi.json", timeout=30).content)
        run(BIN / "openapi-python-client", "generate", "--path", document, "--meta", "none", cwd=tmp_path)
        shutil.copy(FLOW, tmp_path)
        checked = run(
            BIN / "mypy",
            "--config-file",
            ROOT / "tests" / "mypy-client.ini",
            "door_api_client",
            FLOW.name,
            cwd=tmp_path,
        )
        assert checked.startswith("Success: no issues found")
        flow = json.loads(run(sys.executable, FLOW.name, door.url, door.setup_code, cwd=tmp_path))
    guest = flow["guest"]
    assert flow["admin"] == "ana" and flow["synced_when_created"] and flow["synced"] == flow["listed"] > 0
    assert (flow["arrival_order"], flow["arrived_after_undo"]) == (1, False)
    assert flow["events"] == [["UNDO_CHECK_IN", guest], ["CHECK_IN", guest]]
    header, lines = flow["csv_lines"]
    assert header.startswith("id,timestamp,event_type,actor,guest_id") and lines == "3"
