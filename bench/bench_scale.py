"""The door at a conference's peak (`bench/door --scale`): a list of `--guests` read from a file, `--doors`
phones polling it every second as the browser app does (If-None-Match, gzip, and `since` where the server
answers with a `version`), and one client asking for `--rate` check-ins a second, for `--duration`
seconds, against `doorapp serve --workers N` on SQLite and on PostgreSQL. With `--compare DIR` the same
runs first on that checkout's code (main's, say), so before and after come from one run.

Prints, per configuration: the check-ins that got through (a second, of those asked), what the doors
received on the wire per door and per check-in (status line, headers and the body as sent), the venue
Wi-Fi that makes, the latency of a changed poll (a 200: p50, p95, p99), how long after a check-in's
answer the doors saw it (where the answers are deltas, which say which guests changed), and Door's CPU
(its processes, from /proc) as a share of one core. Goals (issue 33): every asked check-in gets through,
at most 2 KB per door per check-in, a changed poll's p95 under 100 ms."""

import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

from tests import postgres

KEY = "bench-signing-key-that-is-long-enough-for-hs256"
PASSWORD = "a long enough password for the bench"
PG_SETTINGS = (
    "-c listen_addresses=127.0.0.1 -c max_connections=200"  # fsync, synchronous_commit: on, as Door runs
)
WARM_UP = 5  # seconds for every door's first (whole) list before the measuring starts


def guest_file(rows):
    """A Meetup attendee export (CSV) of `rows` people: mostly Yes, some Waitlist and No, some with guests."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Name", "User ID", "RSVP", "Guests", "RSVPed on"])
    for i in range(rows):
        status = "Waitlist" if i % 23 == 5 else "No" if i % 41 == 7 else "Yes"
        writer.writerow(
            [f"Guest Number {i}", f"user {20_000_000 + i}", status, int(i % 9 == 4), "11/20/2026"]
        )
    return ("\ufeff" + out.getvalue()).encode()


def door_command(code, *args):
    """`python -m doorapp ARGS` running the checkout `code`'s package (its folder first on the path)."""
    return [sys.executable, "-P", "-m", "doorapp", *args], {
        "PYTHONPATH": str(code)
    }  # -P: not the working folder


def prepared(base, guests):
    """Sign in, make an org and import a `guests`-row file as a meetup dated half an hour ago; returns the
    headers, the list's path and the ids of guests not arrived (to check in)."""
    token = requests.post(f"{base}/auth/token", data={"username": "root", "password": PASSWORD}, timeout=30)
    auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
    org = requests.post(
        f"{base}/organizations/", json={"name": "Con", "slug": "con"}, headers=auth, timeout=30
    )
    org_id = org.json()["id"]
    date = (datetime.now(UTC) - timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    made = requests.post(
        f"{base}/organizations/{org_id}/meetups/import",
        files={"file": ("attendees.csv", guest_file(guests), "text/csv")},
        data={"name": "The conference", "date": date},
        headers=auth,
        timeout=300,
    )
    assert made.status_code == 201, made.text
    path = f"/organizations/{org_id}/meetups/{made.json()['meetup']['id']}/guests"
    listed = requests.get(base + path, headers=auth, timeout=120).json()["guests"]
    waiting = [g["guest"]["platform_user_id"] for g in listed if not g["rsvp"]["has_arrived"]]
    return auth, path, waiting


class Window:
    """The measuring window: [start, end) in perf_counter seconds."""

    def __init__(self, start, seconds):
        self.start, self.end = start, start + seconds

    def __contains__(self, moment):
        return self.start <= moment < self.end


def poll(session, url, auth, known):
    """One poll as the browser app sends it; (status, seconds, bytes on the wire, answer or None). `known`:
    {etag, version} of the last answer, updated."""
    headers = {**auth, "Accept-Encoding": "gzip"}
    if known.get("etag"):
        headers["If-None-Match"] = known["etag"]
    params = {"since": known["version"]} if known.get("version") else {}
    started = time.perf_counter()
    reply = session.get(url, params=params, headers=headers, stream=True, timeout=60)
    body = reply.raw.read(decode_content=False)
    seconds = time.perf_counter() - started
    head = len(f"HTTP/1.1 {reply.status_code} {reply.reason}\r\n") + 2
    head += sum(len(k) + len(v) + 4 for k, v in reply.raw.headers.items())
    answer = None
    if reply.status_code == 200:
        known["etag"] = reply.headers.get("ETag")
        if known.get("deltas") is not False and len(body) < 256 * 1024:  # a delta, or a small list
            text = gzip.decompress(body) if reply.headers.get("Content-Encoding") == "gzip" else body
            answer = json.loads(text)
        if known.get("deltas") is None:  # the first answer says whether this Door answers deltas
            known["deltas"] = answer is not None and "version" in answer
        if known["deltas"]:
            known["version"] = answer["version"]
    return reply.status_code, seconds, len(body) + head, answer


def door(url, auth, offset, stop, window, record):
    """A phone at the door: polls every second (the next one at once when a poll took longer)."""
    session, known = requests.Session(), {}
    at = time.perf_counter() + offset
    while not stop.is_set():
        time.sleep(max(0.0, at - time.perf_counter()))
        at = max(at + 1, time.perf_counter())
        sent = time.perf_counter()
        status, seconds, size, answer = poll(session, url, auth, known)
        if sent in window:
            seen = [g["guest"]["platform_user_id"] for g in (answer or {}).get("guests", [])]
            record.append(
                (status, seconds, size, bool(answer and answer.get("full")), time.perf_counter(), seen)
            )


def checker(base, path, auth, waiting, rate, stop, window, done):
    """One client asking for `rate` check-ins a second, one at a time: {guest id: when its 200 came}."""
    session, step, at = requests.Session(), 1 / rate, window.start
    for guest in waiting:
        time.sleep(max(0.0, at - time.perf_counter()))
        if stop.is_set() or time.perf_counter() >= window.end:
            return
        at += step
        reply = session.post(f"{base}{path}/{guest}/checkin", json={}, headers=auth, timeout=60)
        if reply.status_code == 200:
            done[guest] = time.perf_counter()


def cpu_seconds(pid):
    """User and system CPU time of `pid` and of its children so far."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def run(args, code, workers, database_url, start):
    """One configuration: Door of `code` on a fresh database; the figures."""
    with tempfile.TemporaryDirectory(prefix="door-scale-") as tmp:
        env = {
            "DOOR_SECRET_KEY": KEY,
            "DOOR_DATA_DIR": tmp,
            **({"DATABASE_URL": database_url} if database_url else {}),
        }
        command, path_env = door_command(code, "create-admin", "root", "--password-stdin")
        subprocess.run(command, input=PASSWORD + "\n", text=True, check=True, capture_output=True,
                       env={**os.environ, **env, **path_env})  # fmt: skip
        command, path_env = door_command(code, "serve", "--port", "0", "--workers", str(workers))
        process, base = start(command, {**env, **path_env})
        deadline = time.perf_counter() + 180
        try:
            auth, path, waiting = prepared(base, args.guests)
            if (
                not database_url
            ):  # the day's first backup, a minute after start, is taken before the doors open
                backups = Path(tmp) / "backups"
                while not list(backups.glob("*.db")) and time.perf_counter() < deadline:
                    time.sleep(1)
            return measured(args, base, path, auth, waiting, process.pid)
        finally:
            process.terminate()
            process.wait(timeout=30)


def measured(args, base, path, auth, waiting, pid):
    stop, window = threading.Event(), Window(time.perf_counter() + WARM_UP, args.duration)
    polls, done = [], {}
    threads = [
        threading.Thread(
            target=door, args=(base + path, auth, i / args.doors, stop, window, polls), daemon=True
        )
        for i in range(args.doors)
    ]
    threads.append(
        threading.Thread(target=checker, args=(base, path, auth, waiting, args.rate, stop, window, done))
    )
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, window.start - time.perf_counter()))
    cpu = cpu_seconds(pid)
    time.sleep(max(0.0, window.end - time.perf_counter()))
    cpu = cpu_seconds(pid) - cpu
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    changed = sorted(seconds for status, seconds, *_ in polls if status == 200)
    lags = [
        at - done[guest] for *_, at, seen in polls for guest in seen if guest in done and at >= done[guest]
    ]
    wire = sum(size for _, _, size, *_ in polls)
    checkins = len([t for t in done.values() if t in window])
    return {
        "asked": args.rate * args.duration,
        "through": checkins,
        "per_checkin": wire / args.doors / max(checkins, 1),
        "mbit": wire * 8 / args.duration / 1e6,
        "changed": changed,
        "fulls": sum(1 for _, _, _, full, *_ in polls if full),
        "errors": sum(1 for status, *_ in polls if status >= 400),
        "lag": sorted(lags),
        "cpu": cpu / args.duration,
        "load": os.getloadavg()[0],
    }


def percentile(values, share):
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(share * (len(values) - 1))))]


def main(args, start):
    """bench/door --scale: every engine and --workers count, before (--compare) and after; `start` is
    bench/door's (a server process and the address it prints)."""
    args.duration = args.duration or 30
    root = Path(__file__).resolve().parent.parent
    codes = ([("before", Path(args.compare).resolve())] if args.compare else []) + [("after", root)]
    engines = args.engines.split(",") if args.engines else ["sqlite", "postgresql"]
    if not args.engines and postgres.missing():
        engines = ["sqlite"]
    results = {}
    for engine in engines:
        server = postgres.Server(PG_SETTINGS) if engine == "postgresql" else None
        try:
            for workers in [int(n) for n in args.workers.split(",")]:
                for label, code in codes:
                    url = server.database() if server else None
                    print(f"{engine} --workers {workers}, {label} ({code})...", flush=True)
                    results[engine, workers, label] = run(args, code, workers, url, start)
                    print("  " + line(results[engine, workers, label]), flush=True)
        finally:
            if server:
                server.stop()
    report(args, results)


def line(r):
    lag = f"{percentile(r['lag'], 0.5):.2f} / {percentile(r['lag'], 0.95):.2f} s" if r["lag"] else "-"
    changed = " / ".join(f"{percentile(r['changed'], share) * 1000:.0f}" for share in (0.5, 0.95, 0.99))
    return (
        f"check-ins {r['through'] / r['asked'] * 100:.0f}% of asked ({r['through']} of {r['asked']:.0f}); "
        f"{r['per_checkin'] / 1024:.1f} KiB per door per check-in, {r['mbit']:.1f} Mbit/s; changed poll "
        f"p50/p95/p99 {changed} ms ({len(r['changed'])}, {r['fulls']} whole); seen after p50/p95 {lag}; "
        f"Door CPU {r['cpu'] * 100:.0f}% of a core; errors {r['errors']}; load {r['load']:.1f}"
    )


def report(args, results):
    print(
        f"\n{args.guests:,} guests from a file, {args.doors} doors polling every second, {args.rate:g} "
        f"check-ins a second asked, {args.duration} s measured"
    )
    for (engine, workers, label), r in results.items():
        print(f"  {engine} x{workers} {label:6} {line(r)}")
    for engine, workers, label in results:
        before = results.get((engine, workers, "before"))
        if label == "after" and before:
            after = results[engine, workers, label]
            p95 = percentile(after["changed"], 0.95) / percentile(before["changed"], 0.95)
            print(
                f"  {engine} x{workers}: after / before: bytes per door per check-in "
                f"{after['per_checkin'] / before['per_checkin']:.3f}x, changed poll p95 {p95:.3f}x, "
                f"check-ins through {after['through'] / max(before['through'], 1):.2f}x, "
                f"CPU {after['cpu'] / before['cpu']:.2f}x"
            )
