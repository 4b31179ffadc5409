"""Door on PostgreSQL as a bigger group runs it: a server restarted under a running Door."""

import time

import requests
from helpers import DOORAPP, SECRET, served


def test_a_postgresql_restart_costs_a_few_failed_requests_not_a_stuck_door(postgres, tmp_path):
    url = postgres.database(postgres.template)
    with served(
        DOORAPP,
        "serve",
        "--port",
        "0",
        "--data-dir",
        tmp_path,
        env={"DATABASE_URL": url, "DOOR_SECRET_KEY": SECRET},
    ) as door:
        with requests.Session() as session:
            before = [session.get(f"{door.url}/setup", timeout=10).status_code for _ in range(16)]
            postgres.restart()  # every pooled connection of Door's is cut
            after = [session.get(f"{door.url}/setup", timeout=10).status_code for _ in range(40)]
            time.sleep(5.5)  # /health probes the database at most every 5 seconds
            health = session.get(f"{door.url}/health", timeout=10)
        assert door.stop() == 0
    postgres.drop(url)
    assert before == [200] * 16
    failed = after.count(503)
    assert set(after) <= {200, 503} and failed <= 8, after  # at most one per server thread's connection
    assert after[-16:] == [200] * 16, after
    assert health.status_code == 200, health.text
