"""ckpt.coord's client against stand-in coordinators (standard library HTTP
servers): several URLs, 307 to the leader with the bearer token kept, the next
URL after a dead one or a 503, the same body (request id) on every retry.
Standard library unittest: /usr/bin/python3 -m unittest discover -s python/tests"""
import json
import os
import socket
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ckpt import coord  # noqa: E402


class Stand:
    """A stand-in replica: answer(path, body) -> (status, headers, body) for
    each request, in order (the last one repeats); it records (path, bearer
    token, job token, body) of every request."""

    def __init__(self, *answers):
        self.answers, self.seen = list(answers), []
        stand = self

        class H(BaseHTTPRequestHandler):
            def _any(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n).decode()
                stand.seen.append((self.path, self.headers.get("Authorization"), self.headers.get("X-Job-Token"), body))
                a = stand.answers.pop(0) if len(stand.answers) > 1 else stand.answers[0]
                status, headers, out = a(self.path, body) if callable(a) else a
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                b = json.dumps(out).encode()
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            do_GET = do_POST = _any

            def log_message(self, *args):
                pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def dead_url():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return "http://127.0.0.1:%d" % port


def to(target):
    """An answer: 307 to target, the same path."""
    return lambda path, body: (307, {"Location": target + path}, {"error": "not the leader"})


class TestSeveralURLs(unittest.TestCase):
    def stands(self, *ss):
        for s in ss:
            self.addCleanup(s.close)
        return ss

    def test_dead_then_follower_then_leader(self):
        leader, = self.stands(Stand((200, {}, {"status": "granted", "token": 7})))
        follower, = self.stands(Stand(to(leader.url)))
        c = coord.Coordinator(",".join([dead_url(), follower.url, leader.url]), token="tok-secret")
        g = c.acquire("j1", "job-tok", "rid-1")
        self.assertEqual(g["token"], 7)
        self.assertEqual(len(follower.seen), 1)
        self.assertEqual(len(leader.seen), 1)
        path, bearer, jt, body = leader.seen[0]
        self.assertEqual((path, bearer, jt), ("/v1/jobs/j1/acquire", "Bearer tok-secret", "job-tok"))
        self.assertEqual(json.loads(body)["request_id"], "rid-1")
        self.assertEqual(follower.seen[0][3], body)  # the same body
        self.assertEqual(c.urls[c._cur], leader.url)  # the next request goes straight there
        c.next("j1")
        self.assertEqual((len(follower.seen), len(leader.seen)), (1, 2))

    def test_redirect_to_a_listed_replica_keeps_the_token(self):
        leader, = self.stands(Stand((200, {}, {"in_s": 1.0})))
        peers = {"replication": {"peers": [{"id": "n2", "addr": "x:1", "http": leader.url[len("http://"):]}]}}
        follower, = self.stands(Stand(lambda path, body: (200, {}, peers) if path.startswith("/v1/status")
                                      else (307, {"Location": leader.url + path}, {})))
        c = coord.Coordinator(follower.url, token="tok-secret")
        c.next("j1")
        self.assertEqual(leader.seen[0][1], "Bearer tok-secret")

    def test_redirect_to_a_foreign_host_is_not_followed(self):
        foreign, = self.stands(Stand((200, {}, {"in_s": 1.0})))
        follower, = self.stands(Stand(lambda path, body: (200, {}, {"replication": {"peers": []}}) if path.startswith("/v1/status")
                                      else (307, {"Location": foreign.url + path}, {})))
        c = coord.Coordinator(follower.url, token="tok-secret")
        with self.assertRaises(coord.CoordError) as e:
            c.next("j1")
        self.assertIn(foreign.url, str(e.exception))
        self.assertEqual(foreign.seen, [])

    def test_redirect_trust_is_not_transitive(self):
        # A (given) lists P and redirects there; P lists X and redirects
        # there: X is vouched for by P alone, never followed, never sees the token.
        x, = self.stands(Stand((200, {}, {"in_s": 1.0})))
        def lists(s):
            return {"replication": {"peers": [{"id": "n", "addr": "x:1", "http": s.url[len("http://"):]}]}}
        p, = self.stands(Stand(lambda path, body: (200, {}, lists(x)) if path.startswith("/v1/status")
                               else (307, {"Location": x.url + path}, {})))
        a, = self.stands(Stand(lambda path, body: (200, {}, lists(p)) if path.startswith("/v1/status")
                               else (307, {"Location": p.url + path}, {})))
        c = coord.Coordinator(a.url, token="tok-secret")
        with self.assertRaises(coord.CoordError) as e:
            c.next("j1")
        self.assertIn(x.url, str(e.exception))
        self.assertEqual(x.seen, [])

    def test_503_goes_to_the_next_with_the_same_request_id(self):
        a, b = self.stands(Stand((503, {}, {"error": "no leader"})), Stand((200, {}, {"status": "granted", "token": 9})))
        c = coord.Coordinator(a.url + "," + b.url, token="t")
        c.register("j2", 4, "job-token-2", size_bytes=1e9, mtbf_s=1e5)
        self.assertEqual(len(a.seen), 1)
        self.assertEqual(len(b.seen), 1)
        self.assertEqual(a.seen[0][3], b.seen[0][3])
        self.assertEqual(json.loads(b.seen[0][3])["job_token"], "job-token-2")

    def test_election_retries_same_body(self):
        # 503 twice (an election), then the answer: three requests, one body.
        a, = self.stands(Stand((503, {}, {"error": "electing"}), (503, {}, {"error": "electing"}),
                               (200, {}, {"status": "released", "token": 3})))
        c = coord.Coordinator(a.url, token="t")
        c.release("j3", "jt", 3, duration=1.5)
        self.assertEqual(len(a.seen), 3)
        self.assertEqual(len({s[3] for s in a.seen}), 1)

    def test_errors_are_not_retried(self):
        a, b = self.stands(Stand((409, {}, {"error": "fenced", "field": "token"})), Stand((200, {}, {})))
        c = coord.Coordinator(a.url + "," + b.url)
        with self.assertRaises(coord.CoordError) as e:
            c.renew("j", "jt", 1)
        self.assertEqual((e.exception.status, e.exception.field), (409, "token"))
        self.assertEqual((len(a.seen), len(b.seen)), (1, 0))

    def test_all_dead_raises_after_the_retries(self):
        c = coord.Coordinator(dead_url() + "," + dead_url(), retries=3)
        with mock.patch("time.sleep"), self.assertRaises(OSError):
            c.next("j")

    def test_bad_location_is_an_error(self):
        a, = self.stands(Stand((307, {"Location": "ftp://x"}, {})))
        with self.assertRaises(coord.CoordError) as e:
            coord.Coordinator(a.url).next("j")
        self.assertEqual(e.exception.field, "Location")

    def test_redirect_loop_ends(self):
        a, = self.stands(Stand(lambda path, body: (307, {"Location": a.url + path}, {})))
        with mock.patch("time.sleep"), self.assertRaises(coord.CoordError) as e:
            coord.Coordinator(a.url, retries=5).next("j")
        self.assertEqual(e.exception.status, 307)
        self.assertEqual(len(a.seen), 6)

    def test_env_urls(self):
        with mock.patch.dict(os.environ, {"CKPT_COORD_URL": "http://a:1, http://b:2/", "CKPT_COORD_TOKEN": "x"}):
            c = coord.Coordinator()
        self.assertEqual(c.urls, ["http://a:1", "http://b:2"])
        self.assertEqual(c.retries, 20)
        self.assertEqual(coord.Coordinator("http://a:1").retries, 3)

    def test_bad_urls(self):
        for bad in ("a:1", "http://a:1,,http://b:2", "ftp://x", "http://"):
            with self.assertRaises(ValueError, msg=bad) as e:
                coord.Coordinator(bad)
            self.assertIn("URL", str(e.exception))


if __name__ == "__main__":
    unittest.main()
