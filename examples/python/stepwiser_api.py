"""A small client for the StepWiser Studio REST API (/api/v1), standard library only.

The API is described by the OpenAPI 3.1 document at <STEPWISER_URL>/api/openapi.json.
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

TERMINAL_STATUSES = {"completed", "completed_with_failures", "failed", "cancelled"}


class ConfigError(Exception):
    """The script cannot start: a setting is missing or malformed (exit status 2)."""


class ApiError(Exception):
    """The server refused or failed a request (exit status 1)."""

    def __init__(self, method, path, status, code, message, field=None):
        where = f' (field "{field}")' if field else ""
        super().__init__(f"{method} {path}: {message}" if status == 0 else f"{method} {path}: HTTP {status} {code}: {message}{where}")
        self.status = status
        self.code = code
        self.field = field


class Client:
    """Calls the API with an API token: `Authorization: Bearer sw_…`."""

    def __init__(self, base_url, token, timeout=30):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    @classmethod
    def from_environment(cls):
        """Reads STEPWISER_URL (the app's address, e.g. http://localhost:3000) and STEPWISER_TOKEN."""
        url = os.environ.get("STEPWISER_URL", "").strip()
        token = os.environ.get("STEPWISER_TOKEN", "").strip()
        missing = [name for name, value in (("STEPWISER_URL", url), ("STEPWISER_TOKEN", token)) if not value]
        if missing:
            raise ConfigError(
                f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: export STEPWISER_URL=<the app's address, "
                "e.g. http://localhost:3000> and STEPWISER_TOKEN=<an API token from Settings → API tokens>"
            )
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"STEPWISER_URL {url!r} is not an http(s) address, e.g. http://localhost:3000")
        return cls(url, token)

    def _request(self, method, path, query=None, body=None):
        url = f"{self.base_url}/api/v1{path}"
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json, application/x-ndjson"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", "replace")
            try:
                detail = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                detail = {"code": "HTTP_ERROR", "message": text.strip()[:300] or error.reason}
            raise ApiError(method, path, error.code, detail.get("code"), detail.get("message"), detail.get("field")) from None
        except urllib.error.URLError as error:
            raise ApiError(method, path, 0, "UNREACHABLE", f"cannot reach {self.base_url}: {error.reason}") from None

    def get(self, path, **query):
        with self._request("GET", path, query) as response:
            return json.load(response)

    def post(self, path, body=None):
        with self._request("POST", path, body=body if body is not None else {}) as response:
            return json.load(response)

    def json_lines(self, path, **query):
        """Yields the objects of a JSON Lines answer one at a time, as they stream in."""
        with self._request("GET", path, query) as response:
            for line in response:
                if line.strip():
                    yield json.loads(line)

    # The operations this example uses, one method each.

    def runs(self, kind=None, status=None, dataset_id=None, page_size=50):
        """Every run matching the filters, newest first, following the pages."""
        offset = 0
        while offset is not None:
            page = self.get("/runs", kind=kind, status=status, datasetId=dataset_id, limit=page_size, offset=offset)
            yield from page["items"]
            offset = page["nextOffset"]

    def run(self, run_id):
        return self.get(f"/runs/{urllib.parse.quote(run_id, safe='')}")

    def launch(self, kind, config, offline=False, name=None, tags=None, notes=None):
        body = {"kind": kind, "config": config, "offline": offline}
        if name is not None:
            body["name"] = name
        if tags is not None:
            body["tags"] = list(tags)
        if notes is not None:
            body["notes"] = notes
        return self.post("/runs", body)

    def datasets(self):
        return self.get("/datasets")["items"]

    def labels(self, run_id):
        return self.json_lines(f"/runs/{urllib.parse.quote(run_id, safe='')}/labels")

    def predictions(self, run_id):
        return self.json_lines(f"/runs/{urllib.parse.quote(run_id, safe='')}/predictions")
