#!/usr/bin/env python3
"""A local HTTP server reproducing what real file hosts do, for the remote-reading tests.

Python 3 standard library only. It serves the files under --root on 127.0.0.1 and prints, as
its first two stdout lines (flushed at once):

    http://127.0.0.1:PORT/
    second-origin http://127.0.0.1:PORT2/

PORT is the main origin; PORT2 is a second origin the same process listens on (the target of
`/redirect/` and of `--mode redirect`). Both ports are chosen by the system unless --port /
--second-port are given. The process runs until killed (SIGTERM or SIGINT).

Usage:
    python3 scripts/remote_server.py --root DIR [--port N] [--second-port N]
        [--mode plain|pypi-files|norange|chunked|redirect|gzip]
        [--throttle BYTES_PER_SECOND] [--latency MS] [--signed-ttl SECONDS]
        [--index-files-prefix PREFIX] [--quiet]

Behaviours. Each is chosen for one request by path prefixes before the file's path, and for
every request without a behaviour prefix by --mode. Prefixes compose, in any order:

    /<path>                 --mode's behaviour (default `plain`)
    /plain/<path>           ranges: one range per request, suffix ranges (`bytes=-N`) and open
                            ranges (`bytes=N-`) answered 206 with Content-Range; a multi-range
                            request answered 200 with the whole body (as many servers do);
                            HEAD answered with Content-Length and Accept-Ranges: bytes.
    /pypi-files/<path>      like the package index's file host (files.pythonhosted.org): ranges,
                            but a suffix range `bytes=-N` is refused with 501 and a multi-range
                            request with 501; CORS `Access-Control-Allow-Origin: *` and NO
                            `Access-Control-Expose-Headers` (a page cannot read Content-Range).
    /norange/<path>         ignores Range: always 200 with the whole body and Content-Length,
                            no Accept-Ranges header.
    /chunked/<path>         ignores Range and sends no Content-Length: 200, chunked transfer
                            encoding (a streamed response of unknown size).
    /redirect/<path>        302 to the second origin: http://127.0.0.1:PORT2/signed/<path>?
                            expires=<unix seconds>&sig=<hmac>. The signed URL serves ranges like
                            `plain` (CORS `*`, Content-Range exposed) until it expires, then
                            answers 403 (like an expired S3/CDN signature). A bad signature is
                            403 too. Lifetime: --signed-ttl (default 60 s) or `ttl=<s>`.
    /gzip/<path>            `Content-Encoding: gzip`: the whole file gzipped, 200, Range
                            ignored, unless the request's Accept-Encoding is `identity` (then
                            `plain`). A request without Accept-Encoding gets gzip too.
    /gzip-always/<path>     `Content-Encoding: gzip` whatever Accept-Encoding says (a misbehaving
                            host: a client must refuse the body, not read it as the file's).
    /cors/<path>            adds `Access-Control-Expose-Headers: Content-Range, Content-Length,
                            Accept-Ranges` (a CORS-friendly host) to whichever behaviour.
    /nohead/<path>          HEAD answered 403 (an address signed for GET alone, as object
                            stores' presigned URLs), GET as the other behaviours say.
    /throttle=<B>/<path>    this request's body sent at most B bytes per second (own bucket).
    /stall=<MS>/<path>      this request's body pauses MS milliseconds before its last 1024
                            bytes (a zip's end records and the end of its central directory
                            arrive last: a client exploring as the file arrives is seen to
                            have explored members before the end).
    /latency=<MS>/<path>    this request waits MS milliseconds before its headers.
    /ttl=<S>/<path>         with /redirect/: the signed URL lives S seconds.
    /uses=<N>/<path>        with /redirect/: the signed URL also expires once it has served N
                            requests (an expiry that does not depend on how fast the client is).

    Example: /latency=50/pypi-files/pkg-1.0-py3-none-any.whl

Global switches (apply to every request, on both origins):

    --throttle B            all response bodies share one token bucket of B bytes per second
                            (a shared link: parallel connections split it). 100 Mbit/s is
                            12500000.
    --latency MS            every request waits MS milliseconds before its response headers
                            (one round trip of a distant host).
    --signed-ttl S          lifetime of the signed URLs /redirect/ hands out (default 60).
    --index-files-prefix P  where the synthetic index's file links point (default
                            `/pypi-files/`; e.g. `/redirect/` or `/latency=50/pypi-files/`).

CORS: every response carries `Access-Control-Allow-Origin: *`; OPTIONS (a preflight) answers
204 with `Access-Control-Allow-Methods: GET, HEAD, OPTIONS`, `Access-Control-Allow-Headers:
Range, Accept, Accept-Encoding` and `Access-Control-Max-Age: 600`. Only /cors/ and the second
origin expose headers.

Synthetic package index, built from every `*.whl` under --root (searched recursively; project
name from the file name, normalised as PEP 503 says):

    /simple/                     the project list: PEP 691 JSON when Accept names
                                 `application/vnd.pypi.simple.v1+json`, else PEP 503 HTML.
    /simple/<project>/           the project's files, JSON (PEP 691: name, files[] with
                                 filename, url, hashes.sha256, requires-python,
                                 core-metadata {sha256}, data-dist-info-metadata) or HTML
                                 (anchors with #sha256=, data-requires-python,
                                 data-core-metadata, data-dist-info-metadata). `Vary: Accept`.
    <prefix><wheel>.metadata     PEP 658: the wheel's `*.dist-info/METADATA`, read from the
                                 wheel (the wheel's own path plus `.metadata`, under any
                                 behaviour prefix).

Byte counting:

    /_stats                      JSON: {"total_bytes", "requests", "expired", "paths": {"<file path>":
                                 {"bytes", "requests", "ranges": [[start, end_exclusive], ...],
                                 "agents": {"offload": bytes, "pip": bytes, ...}}}}
                                 bytes are response body bytes actually written, per file path
                                 relative to --root (behaviour prefixes and the signed path
                                 removed), over both origins; ranges are the byte ranges of the
                                 file that were sent to any client but pip (the first 10000
                                 per path); agents splits the bytes by the product of the
                                 client's User-Agent (`offload`, `pip`, `mozilla`). Index pages
                                 and .metadata files are counted under their own URL path.
                                 expired counts signed URLs refused because they expired.
                                 active counts the GET answers being written now (not
                                 reset): a client that dropped a connection mid-answer
                                 leaves its thread writing, and counting, until the socket
                                 fails, so a count is complete once active is 0.
    /_stats/reset                zeroes every count but active (GET or POST); answers
                                 {"reset": true}.

Responses for missing files are 404, for unsatisfiable ranges 416 with `Content-Range: bytes
*/SIZE`; a malformed Range header is ignored (200, as RFC 9110 allows).
"""

import argparse
import gzip
import hashlib
import hmac
import html
import io
import json
import math
import os
import re
import secrets
import sys
import threading
import time
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BEHAVIOURS = ("plain", "pypi-files", "norange", "chunked", "redirect", "gzip", "gzip-always")
# Prefixes that change a behaviour rather than choose one.
MODIFIERS = ("cors", "nohead")
CHUNK = 64 * 1024
# The last bytes of a body sent after a `stall=` pause.
STALL_TAIL = 1024
MAX_RANGES_KEPT = 10000
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


class TokenBucket:
    """Paces writes to at most `rate` bytes per second; shared by every thread that uses it."""

    def __init__(self, rate):
        self.rate = float(rate)
        self.lock = threading.Lock()
        self.next_free = time.monotonic()

    def take(self, count):
        with self.lock:
            now = time.monotonic()
            start = max(now, self.next_free)
            self.next_free = start + count / self.rate
            wait = self.next_free - now
        if wait > 0:
            time.sleep(wait)


class Stats:
    """Counts the body bytes sent, per file path and in total."""

    def __init__(self):
        self.lock = threading.Lock()
        # Answers being written, over resets: a reader that closed its connection mid-answer
        # leaves the thread writing until the socket fails, and its bytes are counted then.
        self.active = 0
        self.reset()

    def answering(self, delta):
        with self.lock:
            self.active += delta

    def reset(self):
        with getattr(self, "lock", threading.Lock()):
            self.total = 0
            self.requests = 0
            self.expired = 0
            self.paths = {}

    def entry(self, key):
        return self.paths.setdefault(key, {"bytes": 0, "requests": 0, "ranges": [], "agents": {}})

    def request(self, key):
        with self.lock:
            self.requests += 1
            self.entry(key)["requests"] += 1

    def sent(self, key, start, count, agent):
        with self.lock:
            self.total += count
            entry = self.entry(key)
            entry["bytes"] += count
            entry["agents"][agent] = entry["agents"].get(agent, 0) + count
            if agent == "pip":
                # The ranges are what the remote readers (the CLI, a page) fetched; pip reads
                # files of its own (older pips download each wheel in a dry run).
                return
            ranges = entry["ranges"]
            if ranges and start is not None and ranges[-1][1] == start:
                ranges[-1][1] = start + count
            elif len(ranges) < MAX_RANGES_KEPT and start is not None:
                ranges.append([start, start + count])

    def snapshot(self):
        with self.lock:
            return {
                "total_bytes": self.total,
                "requests": self.requests,
                "expired": self.expired,
                "active": self.active,
                "paths": json.loads(json.dumps(self.paths)),
            }


def normalise_project(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_range(header, size):
    """Returns ("none"|"single"|"suffix"|"multi"|"bad"|"unsatisfiable", (start, end_exclusive))."""
    if not header:
        return "none", None
    match = re.fullmatch(r"\s*bytes\s*=\s*(.+)", header)
    if not match:
        return "bad", None
    specs = [part.strip() for part in match.group(1).split(",")]
    if len(specs) > 1:
        return "multi", None
    spec = specs[0]
    suffix = re.fullmatch(r"-(\d+)", spec)
    if suffix:
        length = int(suffix.group(1))
        if length == 0 or size == 0:
            return "unsatisfiable", None
        return "suffix", (max(0, size - length), size)
    bounded = re.fullmatch(r"(\d+)-(\d*)", spec)
    if not bounded:
        return "bad", None
    first = int(bounded.group(1))
    last = int(bounded.group(2)) if bounded.group(2) else size - 1
    if last < first:
        return "bad", None
    if first >= size:
        return "unsatisfiable", None
    return "single", (first, min(last, size - 1) + 1)


class Listener(ThreadingHTTPServer):
    """A threading server whose listen queue takes the connections a client opens at once (the
    default of 5 drops the rest, and the kernel retries them a second later: a delay no real
    host has)."""

    request_queue_size = 128


class Server:
    """What both origins share: the root, the switches, the counts and the signing key."""

    def __init__(self, args):
        self.root = os.path.abspath(args.root)
        self.mode = args.mode
        self.bucket = TokenBucket(args.throttle) if args.throttle else None
        self.latency = args.latency / 1000.0
        self.signed_ttl = args.signed_ttl
        self.index_prefix = args.index_files_prefix
        self.quiet = args.quiet
        self.stats = Stats()
        self.key = secrets.token_bytes(32)
        # Requests served by each signed URL that expires by uses (`uses=`), and the URLs made.
        self.uses = {}
        self.signed_made = 0
        self.main_origin = ""
        self.second_origin = ""

    def sign(self, path, expires, uses=""):
        message = f"{path}\n{expires}\n{uses}".encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def used_up(self, token, uses):
        """Counts one request of the signed URL `token`: whether it had already served `uses`."""
        with self.stats.lock:
            self.uses[token] = self.uses.get(token, 0) + 1
            return self.uses[token] > uses

    def file_path(self, relative):
        """The file under the root for a URL path, or None (no `..`, no absolute escapes)."""
        parts = [p for p in relative.split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts):
            return None
        full = os.path.join(self.root, *parts)
        return full if os.path.isfile(full) else None

    def wheels(self):
        """Every wheel under the root: {project: [relative path, ...]}."""
        found = {}
        for directory, _, files in os.walk(self.root, followlinks=True):
            for name in sorted(files):
                if not name.endswith(".whl"):
                    continue
                relative = os.path.relpath(os.path.join(directory, name), self.root)
                project = normalise_project(name.split("-")[0])
                found.setdefault(project, []).append(relative.replace(os.sep, "/"))
        return found


def wheel_metadata(path):
    """The METADATA of a wheel's .dist-info, or None."""
    try:
        with zipfile.ZipFile(path) as wheel:
            for name in wheel.namelist():
                parts = name.split("/")
                if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "METADATA":
                    return wheel.read(name)
    except (OSError, zipfile.BadZipFile):
        return None
    return None


def requires_python(metadata):
    for line in metadata.decode("utf-8", "replace").splitlines():
        if not line.strip():
            break
        if line.lower().startswith("requires-python:"):
            return line.split(":", 1)[1].strip()
    return None


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "remote-test-server/1"
    shared = None  # Server, set by main
    second = False  # True on the second origin

    # ----- plumbing -----

    def log_message(self, format, *args):
        if not self.shared.quiet:
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    def agent(self):
        """The client's product name, from its User-Agent (`offload`, `pip`, `curl`, ...)."""
        agent = self.headers.get("User-Agent", "").strip()
        return agent.split("/")[0].lower() if agent else "unknown"

    def cors(self, expose=False):
        self.send_header("Access-Control-Allow-Origin", "*")
        if expose:
            self.send_header(
                "Access-Control-Expose-Headers", "Content-Range, Content-Length, Accept-Ranges"
            )

    def wait_latency(self, extra):
        delay = self.shared.latency + extra
        if delay > 0:
            time.sleep(delay)

    def send_small(self, status, body, content_type, stats_key=None, extra_headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.cors(expose=self.expose)
        for name, value in extra_headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.write_body(body, stats_key, 0)

    def error(self, status, message):
        self.send_small(status, message + "\n", "text/plain; charset=utf-8")

    def write_body(self, data, stats_key, start):
        """Writes bytes, paced by the throttles, counting what was written."""
        offset = 0
        while offset < len(data):
            piece = data[offset : offset + CHUNK]
            self.pace(len(piece))
            self.wfile.write(piece)
            if stats_key is not None:
                self.shared.stats.sent(stats_key, None if start is None else start + offset, len(piece), self.agent())
            offset += len(piece)

    def pace(self, count):
        if self.shared.bucket:
            self.shared.bucket.take(count)
        if self.request_bucket:
            self.request_bucket.take(count)

    def stream_file(self, path, start, end, stats_key, chunked=False):
        stall = getattr(self, "stall", 0)
        tail = max(start, end - STALL_TAIL) if stall else end
        with open(path, "rb") as handle:
            handle.seek(start)
            position = start
            while position < end:
                if stall and position == tail:
                    self.wfile.flush()
                    time.sleep(stall)
                    stall = 0
                limit = tail - position if position < tail else end - position
                piece = handle.read(min(CHUNK, limit))
                if not piece:
                    break
                self.pace(len(piece))
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                else:
                    self.wfile.write(piece)
                self.shared.stats.sent(stats_key, position, len(piece), self.agent())
                position += len(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")

    # ----- request parsing -----

    def split_path(self):
        """(behaviours, options, relative path, query) from the URL."""
        parsed = urllib.parse.urlsplit(self.path)
        segments = urllib.parse.unquote(parsed.path).split("/")[1:]
        behaviours, options = [], {}
        while segments:
            head = segments[0]
            if head in BEHAVIOURS or head in MODIFIERS:
                behaviours.append(head)
            elif re.fullmatch(r"(throttle|latency|ttl|uses|stall)=\d+", head):
                key, value = head.split("=")
                options[key] = int(value)
            else:
                break
            segments.pop(0)
        query = urllib.parse.parse_qs(parsed.query)
        return behaviours, options, "/".join(segments), query

    # ----- methods -----

    def do_OPTIONS(self):
        self.expose = False
        self.request_bucket = None
        self.send_response(204)
        self.cors()
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Range, Accept, Accept-Encoding")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self):
        behaviours = self.split_path()[0]
        if "nohead" in behaviours:
            self.expose = "cors" in behaviours or self.second
            self.request_bucket = None
            return self.error(403, "HEAD refused: this address is signed for GET only")
        self.do_GET()

    def do_POST(self):
        if urllib.parse.urlsplit(self.path).path == "/_stats/reset":
            self.do_GET()
        else:
            self.expose = False
            self.request_bucket = None
            self.error(405, "only GET, HEAD and OPTIONS are served")

    def do_GET(self):
        behaviours, options, relative, query = self.split_path()
        self.expose = "cors" in behaviours or self.second
        throttle = options.get("throttle")
        self.request_bucket = TokenBucket(throttle) if throttle else None
        self.stall = options.get("stall", 0) / 1000.0
        self.wait_latency(options.get("latency", 0) / 1000.0)

        if relative == "_stats":
            return self.send_small(200, json.dumps(self.shared.stats.snapshot()), "application/json")
        if relative == "_stats/reset":
            self.shared.stats.reset()
            return self.send_small(200, json.dumps({"reset": True}), "application/json")
        self.shared.stats.answering(1)
        try:
            return self.answer_get(behaviours, options, relative, query)
        finally:
            self.shared.stats.answering(-1)

    def answer_get(self, behaviours, options, relative, query):
        if relative == "simple" or relative.startswith("simple/"):
            return self.serve_index(relative)

        if self.second:
            return self.serve_signed(relative, query)
        behaviour = next((b for b in behaviours if b not in MODIFIERS), self.shared.mode)
        if behaviour == "redirect":
            return self.redirect(relative, options.get("ttl", self.shared.signed_ttl), options.get("uses"))

        if relative.endswith(".metadata"):
            return self.serve_metadata(relative)
        path = self.requested_file(relative)
        if path is None:
            return None
        if behaviour == "gzip-always":
            return self.serve_gzip(path, relative)
        if behaviour == "gzip":
            accepted = self.headers.get("Accept-Encoding", "").strip().lower()
            if accepted == "identity":
                return self.serve_ranges(path, relative, pypi=False)
            return self.serve_gzip(path, relative)
        if behaviour == "norange":
            return self.serve_whole(path, relative)
        if behaviour == "chunked":
            return self.serve_whole(path, relative, chunked=True)
        return self.serve_ranges(path, relative, pypi=behaviour == "pypi-files")

    # ----- behaviours -----

    def serve_ranges(self, path, relative, pypi):
        size = os.path.getsize(path)
        kind, span = parse_range(self.headers.get("Range"), size)
        if pypi and kind in ("suffix", "multi"):
            return self.error(501, f"range request {self.headers.get('Range')!r} not supported")
        if kind == "unsatisfiable":
            return self.send_small(
                416, "range not satisfiable\n", "text/plain", extra_headers=[("Content-Range", f"bytes */{size}")]
            )
        if kind in ("single", "suffix"):
            start, end = span
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        else:
            start, end = 0, size
            self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", '"%x-%x"' % (size, int(os.path.getmtime(path))))
        self.cors(expose=self.expose)
        self.end_headers()
        if self.command != "HEAD":
            self.stream_file(path, start, end, relative)

    def serve_whole(self, path, relative, chunked=False):
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.cors(expose=self.expose)
        self.end_headers()
        if self.command != "HEAD":
            self.stream_file(path, 0, size, relative, chunked=chunked)

    def serve_gzip(self, path, relative):
        buffer = io.BytesIO()
        with open(path, "rb") as source, gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as sink:
            for block in iter(lambda: source.read(1 << 20), b""):
                sink.write(block)
        body = buffer.getvalue()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.cors(expose=self.expose)
        self.end_headers()
        if self.command != "HEAD":
            self.write_body(body, relative, None)

    def requested_file(self, relative):
        """The file a request names, counted as asked for; None when there is none (answered 404)."""
        path = self.shared.file_path(relative)
        if path is None:
            self.error(404, f"no file {relative!r} under the server's root")
            return None
        self.shared.stats.request(relative)
        return path

    def redirect(self, relative, ttl, uses=None):
        if self.shared.file_path(relative) is None and not relative.endswith(".metadata"):
            return self.error(404, f"no file {relative!r} under the server's root")
        # Rounded up: a URL lives at least `ttl` seconds.
        expires = math.ceil(time.time() + ttl)
        # A URL that expires by uses is told apart from the others made in the same second.
        with self.shared.stats.lock:
            self.shared.signed_made += 1
            made = self.shared.signed_made
        by_uses = f"{uses}.{made}" if uses else ""
        signature = self.shared.sign(relative, expires, by_uses)
        quoted = urllib.parse.quote(relative)
        uses_query = f"&uses={by_uses}" if uses else ""
        target = f"{self.shared.second_origin}signed/{quoted}?expires={expires}{uses_query}&sig={signature}"
        self.send_small(302, f"see {target}\n", "text/plain", extra_headers=[("Location", target)])

    def serve_signed(self, relative, query):
        if not relative.startswith("signed/"):
            return self.error(404, "the second origin serves only /signed/ URLs")
        relative = relative[len("signed/") :]
        try:
            expires = int(query.get("expires", [""])[0])
        except ValueError:
            return self.error(403, "signed URL without a valid expires=")
        signature = query.get("sig", [""])[0]
        by_uses = query.get("uses", [""])[0]
        if not hmac.compare_digest(signature, self.shared.sign(relative, expires, by_uses)):
            return self.error(403, "signature does not match")
        used_up = bool(by_uses) and self.shared.used_up(by_uses, int(by_uses.split(".")[0]))
        if time.time() > expires or used_up:
            with self.shared.stats.lock:
                self.shared.stats.expired += 1
            return self.error(403, "request has expired")
        if relative.endswith(".metadata"):
            return self.serve_metadata(relative)
        path = self.requested_file(relative)
        if path is not None:
            self.serve_ranges(path, relative, pypi=False)

    # ----- the synthetic index -----

    def serve_metadata(self, relative):
        path = self.shared.file_path(relative[: -len(".metadata")])
        metadata = wheel_metadata(path) if path else None
        if metadata is None:
            return self.error(404, f"no wheel METADATA for {relative!r}")
        self.shared.stats.request(relative)
        self.send_small(200, metadata, "application/octet-stream", stats_key=relative)

    def wants_json(self):
        return SIMPLE_JSON in self.headers.get("Accept", "")

    def serve_index(self, relative):
        wheels = self.shared.wheels()
        key = "/" + relative.rstrip("/") + "/"
        self.shared.stats.request(key)
        parts = [p for p in relative.split("/") if p]
        if len(parts) == 1:
            return self.serve_project_list(sorted(wheels), key)
        project = normalise_project(parts[1])
        if len(parts) != 2 or project not in wheels:
            return self.error(404, f"no project {parts[1:]!r} in the index")
        if parts[1] != project:
            return self.send_small(301, "", "text/plain", extra_headers=[("Location", f"/simple/{project}/")])
        files = [self.file_entry(rel) for rel in wheels[project]]
        if self.wants_json():
            body = json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": files, "versions": []})
            return self.send_small(200, body, SIMPLE_JSON, key, [("Vary", "Accept")])
        anchors = []
        for entry in files:
            attributes = f'href="{html.escape(entry["url"])}#sha256={entry["hashes"]["sha256"]}"'
            if entry["requires-python"]:
                attributes += f' data-requires-python="{html.escape(entry["requires-python"])}"'
            if entry["core-metadata"]:
                digest = entry["core-metadata"]["sha256"]
                attributes += f' data-core-metadata="sha256={digest}" data-dist-info-metadata="sha256={digest}"'
            anchors.append(f"<a {attributes}>{html.escape(entry['filename'])}</a><br/>")
        body = (
            "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.1\">"
            f"<title>Links for {project}</title></head><body><h1>Links for {project}</h1>\n"
            + "\n".join(anchors)
            + "\n</body></html>\n"
        )
        self.send_small(200, body, "text/html; charset=utf-8", key, [("Vary", "Accept")])

    def serve_project_list(self, projects, key):
        if self.wants_json():
            body = json.dumps({"meta": {"api-version": "1.1"}, "projects": [{"name": p} for p in projects]})
            return self.send_small(200, body, SIMPLE_JSON, key, [("Vary", "Accept")])
        links = "\n".join(f'<a href="/simple/{p}/">{p}</a><br/>' for p in projects)
        body = f"<!DOCTYPE html>\n<html><body>\n{links}\n</body></html>\n"
        self.send_small(200, body, "text/html; charset=utf-8", key, [("Vary", "Accept")])

    def file_entry(self, relative):
        path = os.path.join(self.shared.root, relative)
        metadata = wheel_metadata(path)
        url = f"{self.shared.main_origin.rstrip('/')}{self.shared.index_prefix}{urllib.parse.quote(relative)}"
        core = {"sha256": hashlib.sha256(metadata).hexdigest()} if metadata is not None else False
        return {
            "filename": os.path.basename(relative),
            "url": url,
            "hashes": {"sha256": sha256_file(path)},
            "requires-python": requires_python(metadata) if metadata else None,
            "core-metadata": core,
            "data-dist-info-metadata": core,
            "size": os.path.getsize(path),
        }


def make_handler(shared, second):
    return type("OriginHandler", (Handler,), {"shared": shared, "second": second})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the directory whose files are served")
    parser.add_argument("--port", type=int, default=0, help="main origin's port (0: any free)")
    parser.add_argument("--second-port", type=int, default=0, help="second origin's port (0: any)")
    parser.add_argument("--mode", choices=BEHAVIOURS, default="plain", help="behaviour without a prefix")
    parser.add_argument("--throttle", type=int, default=0, help="bytes per second, all bodies together")
    parser.add_argument("--latency", type=float, default=0, help="milliseconds before each response")
    parser.add_argument("--signed-ttl", type=int, default=60, help="seconds a /redirect/ URL lives")
    parser.add_argument("--index-files-prefix", default="/pypi-files/", help="index file links' prefix")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    args = parser.parse_args()
    if not args.index_files_prefix.startswith("/") or not args.index_files_prefix.endswith("/"):
        parser.error("--index-files-prefix must start and end with '/'")

    shared = Server(args)
    main_server = Listener(("127.0.0.1", args.port), make_handler(shared, False))
    second_server = Listener(("127.0.0.1", args.second_port), make_handler(shared, True))
    main_server.daemon_threads = second_server.daemon_threads = True
    shared.main_origin = f"http://127.0.0.1:{main_server.server_address[1]}/"
    shared.second_origin = f"http://127.0.0.1:{second_server.server_address[1]}/"
    print(shared.main_origin, flush=True)
    print(f"second-origin {shared.second_origin}", flush=True)
    threading.Thread(target=second_server.serve_forever, daemon=True).start()
    try:
        main_server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
