"""A real HTTP server on a free local port for the unit tests: each test gives it the answers to serve."""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

Body = Union[bytes, Iterable[bytes]]
Answer = Tuple[int, Dict[str, str], Body]
Route = Callable[["Request"], Answer]


class Request:
    def __init__(self, method: str, path: str, query: Dict[str, List[str]], headers: Dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.query = {name: values[-1] for name, values in query.items()}
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


def json_answer(value: Any, status: int = 200) -> Answer:
    return status, {"content-type": "application/json"}, json.dumps(value).encode()


class FakeServer:
    """Serves ``routes[(method, path)](request)``; records every request in ``requests``."""

    def __init__(self) -> None:
        self.routes: Dict[Tuple[str, str], Route] = {}
        self.requests: List[Request] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                parsed = urllib.parse.urlparse(self.path)
                length = int(self.headers.get("content-length") or 0)
                request = Request(self.command, parsed.path, urllib.parse.parse_qs(parsed.query), {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                server.requests.append(request)
                route = server.routes.get((self.command, parsed.path))
                status, headers, body = route(request) if route else json_answer({"error": {"code": "NOT_FOUND", "message": f"no route {parsed.path}"}}, 404)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if isinstance(body, bytes):
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for part in body:
                    self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            do_GET = _serve
            do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def route(self, method: str, path: str, answer: Optional[Route] = None):
        if answer is not None:
            self.routes[(method, path)] = answer
            return answer

        def register(fn: Route) -> Route:
            self.routes[(method, path)] = fn
            return fn

        return register
