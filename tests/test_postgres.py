"""Door on PostgreSQL as a bigger group runs it: a server restarted under a running Door."""

import time

import requests
from helpers import DOORAPP, SECRET, at_once, served


def test_a_postgresql_restart_costs_no_failed_request(postgres, tmp_path):
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
    assert after == [200] * 40, after  # each thread's cut connection is dropped before it is used
    assert health.status_code == 200, health.text


def test_health_answers_at_once_after_a_postgresql_restart(postgres, tmp_path):
    """A balancer that took the machine out on a 503 brings it back on a 200: each server thread's first
    /health after the restart drops its cut connection and asks again on a new one."""
    url = postgres.database(postgres.template)
    env = {"DATABASE_URL": url, "DOOR_SECRET_KEY": SECRET}
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, env=env) as door:
        check = f"{door.url}/health"
        for _ in range(3):  # every one of the 8 threads has taken a connection
            assert {r.status_code for r in at_once(24, lambda i: requests.get(check, timeout=10))} == {200}
        postgres.restart()  # every one of them is cut
        after = [requests.get(check, timeout=10) for _ in range(40)]
        concurrent = at_once(24, lambda i: requests.get(check, timeout=10))
        assert door.stop() == 0
    postgres.drop(url)
    assert [r.status_code for r in after] == [200] * 40, [r.text for r in after if r.status_code != 200][:2]
    assert {r.status_code for r in concurrent} == {200}
