"""A client of the ckpt checkpoint coordinator (`ckpt serve`), standard library only.

A job registers, asks when to checkpoint next, and before it writes asks for the
file system; while it writes it renews its lease; then it releases it with the
measured duration. Every mutating request is idempotent (request ids, the job
token, the fencing token), so a retry after a timeout is safe.

A replicated coordinator (`ckpt serve --id ... --peers ...`) is given as its
replicas' URLs, comma-separated (in CKPT_COORD_URL too): a request goes to the
one that answered last, follows a 307 to the leader (keeping the bearer token;
only to one of these URLs or to a replica the redirecting server's /v1/status
lists: a 307 to any other host is an error, and the token never goes there),
and on a connection error or a 503 goes to the next URL, always with the same
body, so the same request id: the group recognises the retry.

    export CKPT_COORD_URL=http://127.0.0.1:7070 CKPT_COORD_TOKEN=...
    python3 -m ckpt.coord demo --id py-job --nodes 16 --size 50e9 --mtbf 43200

The API is documented in api/openapi.yaml (keys carry their unit: _s, _bytes, _bps).
"""
import argparse
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def _origin(u):
    """scheme://host[:port] of an http(s) URL; ValueError naming a bad one."""
    p = urllib.parse.urlsplit(u.strip())
    if p.scheme not in ("http", "https") or not p.netloc:
        raise ValueError(f"coordinator URL {u!r} is not an http(s) URL")
    return f"{p.scheme}://{p.netloc}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects come back as HTTPError: _do follows them itself."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class CoordError(Exception):
    """An error answer: HTTP status, the field at fault, the message."""

    def __init__(self, status, field, message):
        super().__init__(f"{status}: {field + ': ' if field else ''}{message}")
        self.status, self.field, self.message = status, field, message


class Coordinator:
    """url: one coordinator's URL or a group's replicas' URLs, comma-separated
    (default $CKPT_COORD_URL); retries after a connection error, 429, 503 or a
    307 (None: 3 with one URL, 20 with several, about 9 s of backoff: enough
    for an election)."""

    def __init__(self, url=None, token=None, timeout=10.0, retries=None):
        url = url or os.environ.get("CKPT_COORD_URL", "http://127.0.0.1:7070")
        self.urls = [u.strip().rstrip("/") for u in url.split(",")]
        for u in self.urls:
            _origin(u)
        self.url = self.urls[0]
        self.token = token or os.environ.get("CKPT_COORD_TOKEN", "")
        self.timeout = timeout
        self.retries = retries if retries is not None else (3 if len(self.urls) == 1 else 20)
        self._cur = 0  # the URL that answered last
        self._peers = set()  # origins of the replicas a server's /v1/status listed

    def _is_peer(self, base, o):
        """Whether origin o is a replica of base's group, as base's /v1/status lists them."""
        if o not in self._peers:
            req = urllib.request.Request(base + "/v1/status?stale=1")
            if self.token:
                req.add_header("Authorization", "Bearer " + self.token)
            try:
                with _opener.open(req, timeout=self.timeout) as resp:
                    st = json.loads(resp.read() or b"{}")
            except (OSError, ValueError):
                return False
            rep = st.get("replication") if isinstance(st, dict) else None
            peers = rep.get("peers") if isinstance(rep, dict) else None
            scheme = base.split("://", 1)[0]
            self._peers = set()  # a member removed since the last answer is trusted no more
            for p in peers if isinstance(peers, list) else []:
                if isinstance(p, dict) and isinstance(p.get("http"), str) and p["http"]:
                    self._peers.add(f"{scheme}://{p['http']}")
        return o in self._peers

    def _next(self):
        self._cur = (self._cur + 1) % len(self.urls)

    def _do(self, method, path, body=None, job_token=None):
        data = None if body is None else json.dumps(body).encode()
        last, leader, wait = None, None, 0.0
        for attempt in range(max(self.retries, 0) + 1):
            time.sleep(wait)
            wait = min(0.1 * (attempt + 1), 0.5)
            base, leader = leader or self.urls[self._cur], None
            req = urllib.request.Request(base + path, data=data, method=method)
            req.add_header("Content-Type", "application/json")
            if self.token:
                req.add_header("Authorization", "Bearer " + self.token)
            if job_token:
                req.add_header("X-Job-Token", job_token)
            try:
                with _opener.open(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read() or b"{}")
            except urllib.error.HTTPError as e:
                if e.code in (307, 308):  # to the leader
                    loc = e.headers.get("Location", "")
                    try:
                        o = _origin(loc)
                    except ValueError:
                        raise CoordError(e.code, "Location", f"{method} {path}: redirected to {loc!r}") from None
                    last = CoordError(e.code, "", f"{method} {path}: redirected to {o}")
                    if o in self.urls:
                        self._cur = self.urls.index(o)
                    elif self._is_peer(self.urls[self._cur], o):  # a given server vouches, never a followed one
                        leader = o
                    else:
                        raise CoordError(e.code, "Location", f"{method} {path}: redirected by {base} to {o}, "
                                         "neither a server given nor a replica its group lists: not followed") from None
                    wait = 0.0
                    continue
                try:
                    err = json.loads(e.read())
                except ValueError:
                    err = None
                if not isinstance(err, dict):
                    err = {"error": str(e)}
                last = CoordError(e.code, err.get("field", ""), err.get("error", ""))
                if e.code == 503 and len(self.urls) > 1:
                    self._next()
                if e.code not in (429, 503):
                    raise last
            except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
                last = e
                self._next()
        raise last

    def register(self, job_id, nodes, job_token, **spec):
        body = {"id": job_id, "nodes": nodes, "job_token": job_token, **spec}
        return self._do("POST", "/v1/jobs", body)

    def next(self, job_id):
        return self._do("POST", f"/v1/jobs/{job_id}/next", {})

    def acquire(self, job_id, job_token, request_id, kind="checkpoint", **extra):
        body = {"request_id": request_id, "kind": kind, **extra}
        return self._do("POST", f"/v1/jobs/{job_id}/acquire", body, job_token)

    def wait_grant(self, job_id, job_token, kind="checkpoint", poll=1.0, **extra):
        rid = secrets.token_hex(12)
        while True:
            g = self.acquire(job_id, job_token, rid, kind, **extra)
            if g["status"] == "granted":
                return g
            if g["status"] != "waiting":
                raise CoordError(409, "request_id", f"request {rid} ended: {g['status']}")
            time.sleep(poll)

    def renew(self, job_id, job_token, token):
        return self._do("POST", f"/v1/jobs/{job_id}/renew", {"token": token}, job_token)

    def release(self, job_id, job_token, token, duration=0.0):
        body = {"token": token, "duration_s": duration}
        return self._do("POST", f"/v1/jobs/{job_id}/release", body, job_token)

    def done(self, job_id, job_token, failed=False):
        return self._do("POST", f"/v1/jobs/{job_id}/done", {"failed": failed}, job_token)


def demo(args):
    """Register, ask, acquire, 'write' for --write seconds, release, end."""
    c = Coordinator(args.url)
    job_token = secrets.token_hex(16)
    c.register(args.id, args.nodes, job_token, size_bytes=args.size, mtbf_s=args.mtbf)
    advice = c.next(args.id)
    print(f"{args.id}: next checkpoint in {advice['in_s']:.0f} s ({advice['method']}, C = {advice['c_s']:.3g} s)")
    t0 = time.monotonic()
    g = c.wait_grant(args.id, job_token, poll=0.2)
    print(f"{args.id}: granted lease {g['token']} after {time.monotonic() - t0:.2f} s")
    t1 = time.monotonic()
    time.sleep(args.write)  # the checkpoint write; renew if it exceeds the TTL
    c.renew(args.id, job_token, g["token"])
    r = c.release(args.id, job_token, g["token"], duration=time.monotonic() - t1)
    print(f"{args.id}: {r['status']} lease {r['token']}")
    c.done(args.id, job_token)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="one checkpoint cycle")
    d.add_argument("--url", default=None)
    d.add_argument("--id", required=True)
    d.add_argument("--nodes", type=int, default=1)
    d.add_argument("--size", type=float, required=True, help="checkpoint bytes")
    d.add_argument("--mtbf", type=float, required=True, help="job MTBF, seconds")
    d.add_argument("--write", type=float, default=0.1, help="seconds the write takes")
    args = p.parse_args(argv)
    try:
        return demo(args)
    except CoordError as e:
        print(f"ckpt.coord: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
