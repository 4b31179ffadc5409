"""Liveness and health for monitors."""

import time
from typing import Literal, TypedDict

from bottle import response

from doorapp import __version__, faults
from doorapp.access import public
from doorapp.api import adapter, endpoint
from doorapp.db import db, drop_connection


class Pong(TypedDict):
    ping: Literal["pong"]


class Service(TypedDict):
    """A service's last check: its latency when it answered, else null, and what it said."""

    status: Literal["healthy", "unhealthy", "unknown"]
    latency_ms: float | None
    message: str


class Services(TypedDict):
    database: Service
    platform: Service


class Health(TypedDict):
    """Healthy, degraded (the platform is not) or unhealthy (the database is not: 503)."""

    status: Literal["healthy", "degraded", "unhealthy"]
    version: str
    services: Services


@endpoint("GET", "/ping", auth=public, answer=Pong)
def ping():
    """Liveness: answers {"ping": "pong"} while the process runs."""
    return Pong(ping="pong")


def _database():
    """The database's check. A failure drops this thread's connection and asks once more on a new one: a
    PostgreSQL restart cuts every thread's connection, and a balancer that took the machine out on a 503
    brings it back only on a 200."""
    started = time.perf_counter()
    for attempt in (1, 2):
        try:
            db.connect(reuse_if_open=True)
            db.execute_sql("SELECT 1").fetchone()
            break
        except Exception as error:  # any database failure is reported, never raised: this is the health check
            drop_connection()
            if attempt == 2:
                return {"status": "unhealthy", "latency_ms": None, "message": type(error).__name__}
    trouble = faults.trouble()  # it answers reads, but its writes or checkpoints keep failing
    return {
        "status": "degraded" if trouble else "healthy",
        "latency_ms": round((time.perf_counter() - started) * 1000, 2),
        "message": trouble or "ok",
    }


def _platform():
    """The adapter's last probe (at most 5 s old); a probe due runs in the background, so this never waits
    on the platform."""
    return adapter().health()


UNHEALTHY = ((503, "Unhealthy: the database is unreachable."),)


@endpoint("GET", "/health", auth=public, tx=False, answer=Health, also=UNHEALTHY)
def get_health():
    """Health: database and external-platform connectivity; 503 when the database is unreachable, degraded
    when it answers reads but its writes or checkpoints keep failing (the message says what to do)."""
    services = Services(database=_database(), platform=_platform())
    if services["database"]["status"] == "unhealthy":
        status = "unhealthy"
        response.status = 503
    else:
        fine = all(service["status"] == "healthy" for service in services.values())
        status = "healthy" if fine else "degraded"
    return Health(status=status, version=__version__, services=services)


@endpoint("HEAD", "/health", auth=public, tx=False, also=UNHEALTHY)
def head_health():
    """Lightweight health for monitors: the status and headers of GET /health, no body."""
    return get_health()  # Bottle sends a HEAD answer's headers (its length too) without its body
