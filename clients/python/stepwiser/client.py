"""The client for the StepWiser Studio REST API (``/api/v1``), standard library only.

Every operation, parameter and answer is described by the OpenAPI 3.1 document
at ``<url>/api/openapi.json``.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import posixpath
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from . import __version__
from .errors import (
    ConfigError,
    ConnectionFailedError,
    IntegrityError,
    RunFailedError,
    StepwiserError,
    WaitTimeoutError,
    error_from_response,
)

Json = Dict[str, Any]
RunRef = Union[str, Mapping[str, Any]]
PathLike = Union[str, "os.PathLike[str]"]

#: Statuses a run does not leave.
TERMINAL_STATUSES = frozenset({"completed", "completed_with_failures", "failed", "cancelled"})
#: Terminal statuses :meth:`Client.wait` raises :class:`RunFailedError` on.
FAILED_STATUSES = frozenset({"failed", "cancelled"})

_CHUNK_BYTES = 1 << 16


def camel_case(name: str) -> str:
    """``dataset_id`` → ``datasetId``; a name without underscores is kept as it is."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_keys(options: Mapping[str, Any]) -> Json:
    """The options with snake_case keys written as the API names them (camelCase); ``None`` values are left out."""
    return {camel_case(key): value for key, value in options.items() if value is not None}


def _query_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TypeError(f"query parameter {name!r} must be a string, number or boolean, not {type(value).__name__}")


def _run_id(run: RunRef) -> str:
    if isinstance(run, str):
        run_id = run
    elif isinstance(run, Mapping) and isinstance(run.get("id"), str):
        run_id = run["id"]
    else:
        raise TypeError(f"a run is its id (a string) or a run object with an id, not {run!r}")
    if not run_id:
        raise ValueError("the run id is empty")
    return run_id


def _segment(value: str) -> str:
    """One path segment, percent-encoded (an id never reaches another path)."""
    return urllib.parse.quote(value, safe="")


def _items(answer: Any, *keys: str) -> List[Json]:
    """The list of a list answer, under the first of ``keys`` it has."""
    if isinstance(answer, Mapping):
        for key in keys:
            if isinstance(answer.get(key), list):
                return list(answer[key])
    raise StepwiserError(f"the answer has no {' or '.join(repr(k) for k in keys)} list: {str(answer)[:200]}")


def _safe_relative(name: str) -> str:
    """An export file's name as a path under the output folder; refuses names that would leave it."""
    normal = posixpath.normpath(name.replace("\\", "/"))
    if not name or normal.startswith("/") or normal == ".." or normal.startswith("../") or re.match(r"^[A-Za-z]:", normal):
        raise IntegrityError(f"the export names a file {name!r} outside its folder; nothing was written for it")
    return normal


class ExportedFiles(List[Path]):
    """The paths of an export's downloaded files; ``run`` is the finished export run."""

    def __init__(self, paths: Sequence[Path], run: Json) -> None:
        super().__init__(paths)
        self.run = run


class Client:
    """Calls the REST API with an API token (``Authorization: Bearer sw_…``).

    Args:
        url: the app's address, e.g. ``http://localhost:3000`` (a trailing ``/api/v1`` is accepted);
            default: the ``STEPWISER_URL`` environment variable.
        token: an API token made under **API tokens** (``/settings/tokens``);
            default: the ``STEPWISER_TOKEN`` environment variable.
        timeout: seconds to wait for the server on each request (not for a run: see :meth:`wait`).

    Raises:
        ConfigError: the URL or the token is missing, or the URL is not an http(s) address.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 30.0) -> None:
        url = (url if url is not None else os.environ.get("STEPWISER_URL", "")).strip()
        token = (token if token is not None else os.environ.get("STEPWISER_TOKEN", "")).strip()
        missing = [name for name, value in (("STEPWISER_URL", url), ("STEPWISER_TOKEN", token)) if not value]
        if missing:
            raise ConfigError(
                f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: pass url= and token=, or export "
                "STEPWISER_URL=<the app's address, e.g. http://localhost:3000> and "
                "STEPWISER_TOKEN=<an API token from Settings → API tokens>"
            )
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"STEPWISER_URL {url!r} is not an http(s) address, e.g. http://localhost:3000")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, not {timeout!r}")
        base = url.rstrip("/")
        if base.endswith("/api/v1"):
            base = base[: -len("/api/v1")]
        self.url = base
        self.token = token
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"Client(url={self.url!r}, token='sw_…')"

    # ------------------------------------------------------------------ HTTP

    def url_for(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        """The full URL of an API path (``/runs``) with its query; ``None`` values are left out, booleans are ``true``/``false``."""
        if not path.startswith("/"):
            raise ValueError(f"an API path starts with '/', not {path!r}")
        url = f"{self.url}/api/v1{path}"
        pairs = [(name, _query_value(name, value)) for name, value in (query or {}).items() if value is not None]
        return f"{url}?{urllib.parse.urlencode(pairs)}" if pairs else url

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        *,
        data: Optional[BinaryIO] = None,
        size: Optional[int] = None,
    ):
        """Sends one request; returns the open response (use it as a context manager).

        ``body`` is sent as JSON; ``data`` (with its ``size`` in bytes) as raw bytes.

        Raises:
            StepwiserError: the subclass of the answer's HTTP status, with the API's code, message and field;
                ConnectionFailedError when the server cannot be reached.
        """
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json, application/x-ndjson",
            "User-Agent": f"stepwiser-python/{__version__}",
        }
        payload: Any = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif data is not None:
            payload = data
            headers["Content-Type"] = "application/octet-stream"
            if size is not None:
                headers["Content-Length"] = str(size)
        req = urllib.request.Request(self.url_for(path, query), data=payload, method=method, headers=headers)
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            try:
                text = error.read()
            except OSError:
                text = b""
            finally:
                error.close()
            raise error_from_response(error.code, text, method=method, path=path, reason=str(error.reason)) from None
        except urllib.error.URLError as error:
            raise ConnectionFailedError(f"cannot reach {self.url}: {error.reason}", method=method, path=path) from None
        except (OSError, http.client.HTTPException) as error:
            raise ConnectionFailedError(f"cannot reach {self.url}: {error}", method=method, path=path) from None

    def _json(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Any:
        with self.request(method, path, query, body) as response:
            raw = response.read()
        try:
            return json.loads(raw)
        except ValueError:
            raise StepwiserError(f"the answer is not JSON: {raw[:200]!r}", method=method, path=path) from None

    def get(self, path: str, **query: Any) -> Any:
        """``GET`` an API path; the JSON answer."""
        return self._json("GET", path, query)

    def post(self, path: str, body: Any = None, **query: Any) -> Any:
        """``POST`` a JSON body (``{}`` when none) to an API path; the JSON answer."""
        return self._json("POST", path, query, body if body is not None else {})

    def json_lines(self, path: str, **query: Any) -> Iterator[Json]:
        """Yields the objects of a JSON Lines answer one at a time, as they arrive (the answer never sits in memory).

        Raises:
            StepwiserError: a line is not JSON (naming the line), or the answer was cut off.
        """
        with self.request("GET", path, query) as response:
            number = 0
            try:
                for line in response:
                    number += 1
                    if not line.strip():
                        continue
                    try:
                        yield json.loads(line)
                    except ValueError:
                        raise StepwiserError(f"line {number} of the answer is not JSON: {line[:200]!r}", method="GET", path=path) from None
            except (OSError, http.client.HTTPException) as error:
                raise ConnectionFailedError(f"the answer was cut off after line {number}: {error}", method="GET", path=path) from None

    # ------------------------------------------------------------------ runs

    def runs(self, kind: Optional[str] = None, status: Optional[str] = None, limit: Optional[int] = None, **filters: Any) -> Iterator[Json]:
        """Runs, newest first, following the pages (``nextOffset``) until there are no more or ``limit`` runs were yielded.

        Args:
            kind: e.g. ``"annotate"``, ``"judge"``, ``"benchmark"``.
            status: e.g. ``"completed"``.
            limit: at most this many runs (default: all).
            **filters: the list's other filters, snake_case or as the API names them:
                ``dataset_id``, ``search`` (part of the name), ``tag``, ``model``, …
        """
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError(f"limit must be a whole number ≥ 0, not {limit!r}")
        query = camel_keys({"kind": kind, "status": status, **filters})
        offset: Optional[int] = int(query.pop("offset", 0))
        left = limit
        while offset is not None and (left is None or left > 0):
            page_size = 200 if left is None else min(left, 200)
            page = self.get("/runs", **query, limit=page_size, offset=offset)
            rows = _items(page, "runs", "items")
            for row in rows:
                yield row
            if left is not None:
                left -= len(rows)
            offset = page.get("nextOffset")
            if not rows:
                break

    def run(self, run: RunRef) -> Json:
        """One run with its progress, configuration snapshot and summary."""
        return self.get(f"/runs/{_segment(_run_id(run))}")

    def launch(
        self,
        kind: str,
        config: Mapping[str, Any],
        name: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        notes: Optional[str] = None,
        offline: bool = False,
    ) -> Json:
        """Creates and queues a run; the new run. ``config`` is the kind's configuration (each kind's schema is in the OpenAPI document, e.g. ``JudgeConfig``)."""
        if isinstance(tags, str):
            raise TypeError("tags is a list of strings, not one string")
        body: Json = {"kind": kind, "config": dict(config), "offline": bool(offline)}
        if name is not None:
            body["name"] = name
        if tags is not None:
            body["tags"] = list(tags)
        if notes is not None:
            body["notes"] = notes
        return self.post("/runs", body)

    def cancel(self, run: RunRef) -> Json:
        """Cancels a queued or running run."""
        return self.post(f"/runs/{_segment(_run_id(run))}/cancel")

    def resume(self, run: RunRef) -> Json:
        """Resumes a cancelled or interrupted run."""
        return self.post(f"/runs/{_segment(_run_id(run))}/resume")

    def wait(self, run: RunRef, timeout: float = 600.0, poll: float = 1.0) -> Json:
        """Polls a run until it ends; the finished run (``completed``, or ``completed_with_failures``).

        Raises:
            RunFailedError: the run ended ``failed`` or ``cancelled`` (the message carries the run's error).
            WaitTimeoutError: it had not ended after ``timeout`` seconds (the run itself goes on).
        """
        if timeout < 0 or poll <= 0:
            raise ValueError(f"timeout must be ≥ 0 and poll > 0 seconds, not timeout={timeout!r}, poll={poll!r}")
        run_id = _run_id(run)
        deadline = time.monotonic() + timeout
        while True:
            state = self.run(run_id)
            if state.get("status") in TERMINAL_STATUSES:
                if state["status"] in FAILED_STATUSES:
                    raise RunFailedError(state)
                return state
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeoutError(state, timeout)
            time.sleep(min(poll, left))

    def labels(self, run: RunRef) -> Iterator[Json]:
        """An annotate run's chunk labels, Q-values and confidences, one dict per chunk (JSON Lines, streamed)."""
        return self.json_lines(f"/runs/{_segment(_run_id(run))}/labels")

    def predictions(self, run: RunRef) -> Iterator[Json]:
        """A judge or benchmark run's ProcessBench predictions ``{"id", "prediction"}``, one dict per solution (streamed)."""
        return self.json_lines(f"/runs/{_segment(_run_id(run))}/predictions")

    # ------------------------------------------------------------------ catalogue

    def datasets(self) -> List[Json]:
        """Datasets with their solution and problem counts."""
        return _items(self.get("/datasets"), "datasets", "items")

    def dataset(self, name: str) -> Json:
        """The dataset of that name.

        Raises:
            StepwiserError: there is none, or more than one.
        """
        found = [d for d in self.datasets() if d.get("name") == name]
        if len(found) != 1:
            raise StepwiserError(f'{"no" if not found else len(found)} datasets named {name!r}')
        return found[0]

    def endpoints(self) -> List[Json]:
        """Inference endpoints: name, model, role, URLs, concurrency, protocols and prices (never an API key)."""
        return _items(self.get("/endpoints"), "endpoints", "items")

    def queues(self) -> List[Json]:
        """Annotation queues with their progress."""
        return _items(self.get("/annotation-queues"), "queues", "items")

    def queue(self, queue_id: str) -> Json:
        """One annotation queue: progress per annotator and agreement."""
        return self.get(f"/annotation-queues/{_segment(queue_id)}")

    def queue_labels(self, queue_id: str) -> Iterator[Json]:
        """A queue's human labels, one dict per line (streamed)."""
        return self.json_lines(f"/annotation-queues/{_segment(queue_id)}/labels")

    # ------------------------------------------------------------------ files, imports, exports

    def upload(self, path: PathLike, file_name: Optional[str] = None) -> Json:
        """Uploads a file's bytes (streamed); ``{"fileId", "fileName", "sizeBytes", "sha256"}``."""
        source = Path(path)
        if not source.is_file():
            raise FileNotFoundError(f"{source}: no such file to upload")
        with source.open("rb") as handle:
            with self.request("POST", "/uploads", {"fileName": file_name or source.name}, data=handle, size=source.stat().st_size) as response:
                return json.loads(response.read())

    def import_file(
        self,
        format: str,
        path: PathLike,
        *,
        wait: bool = True,
        timeout: float = 600.0,
        poll: float = 1.0,
        **options: Any,
    ) -> List[Json]:
        """Uploads a file and imports it as a job; the import run(s), finished unless ``wait=False``.

        Args:
            format: ``processbench``, ``prm800k``, ``math-shepherd``, ``jsonl``, ``parquet`` or ``prmbench``.
            path: the file.
            **options: as the import form and the CLI's flags have them, snake_case or camelCase:
                ``name``, ``dataset_id``, ``subset``, ``generator``, ``map``, ``duplicates`` (``skip``/``replace``),
                ``delete_human_labels``, ``on_invalid`` (``fail``/``skip``), ``max_invalid_share``.

        Raises:
            RunFailedError: an import failed (its error names the file, line, record and field).
        """
        uploaded = self.upload(path)
        answer = self.post("/imports", {"format": format, "fileIds": [uploaded["fileId"]], **camel_keys(options)})
        runs = _items(answer, "runs")
        return [self.wait(run, timeout=timeout, poll=poll) for run in runs] if wait else runs

    def import_report(self, run: RunRef) -> Iterator[Json]:
        """An import's report: the records it left out or ignored, ``{"file", "line", "record", "field", "reason", "kind"}``."""
        return self.json_lines(f"/imports/{_segment(_run_id(run))}/report")

    def start_export(self, kind: str, run: RunRef, **options: Any) -> Json:
        """Queues an export job (``training-set``, ``labels``, ``predictions``, ``segmentation-sft``, ``selection``); the export run."""
        body: Json = {"kind": kind, "runId": _run_id(run)}
        if options:
            body["options"] = camel_keys(options)
        return self.post("/exports", body)

    def export_files(self, export_run: RunRef) -> List[Json]:
        """A completed export's files: ``{"fileId", "name", "sizeBytes", "sha256"}``."""
        return _items(self.get(f"/exports/{_segment(_run_id(export_run))}/files"), "files")

    def download(self, file_id: str, destination: PathLike, *, size_bytes: Optional[int] = None, sha256: Optional[str] = None) -> Path:
        """Streams a stored file to ``destination``; checks its size and SHA-256 when given.

        Raises:
            IntegrityError: the bytes differ from the stated size or digest (the partial file is removed).
        """
        target = Path(destination)
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        written = 0
        partial = target.with_name(target.name + ".part")
        try:
            with self.request("GET", f"/files/{_segment(file_id)}") as response, partial.open("wb") as out:
                while True:
                    chunk = response.read(_CHUNK_BYTES)
                    if not chunk:
                        break
                    digest.update(chunk)
                    out.write(chunk)
                    written += len(chunk)
            if size_bytes is not None and written != size_bytes:
                raise IntegrityError(f"{target.name}: downloaded {written} bytes, the export states {size_bytes}")
            if sha256 is not None and digest.hexdigest() != sha256.lower():
                raise IntegrityError(f"{target.name}: SHA-256 {digest.hexdigest()} differs from the export's {sha256}")
            partial.replace(target)
        finally:
            if partial.exists():
                partial.unlink()
        return target

    def download_export(self, export_run: RunRef, out_dir: PathLike) -> List[Path]:
        """Downloads every file of a completed export into ``out_dir`` (each checked); their paths."""
        folder = Path(out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        return [
            self.download(f["fileId"], folder / _safe_relative(f["name"]), size_bytes=f.get("sizeBytes"), sha256=f.get("sha256"))
            for f in self.export_files(export_run)
        ]

    def export(self, kind: str, run: RunRef, out_dir: PathLike, *, timeout: float = 600.0, poll: float = 1.0, **options: Any) -> ExportedFiles:
        """Queues an export of ``run``, waits for it, downloads every file into ``out_dir`` and checks each.

        Returns the files' paths (a list), its ``run`` attribute the finished export run.

        Raises:
            RunFailedError: the export failed (its error says why, e.g. a label rule the run did not store).
            IntegrityError: a downloaded file differs from the size or SHA-256 the export lists.
        """
        job = self.start_export(kind, run, **options)
        finished = self.wait(job, timeout=timeout, poll=poll)
        return ExportedFiles(self.download_export(finished, out_dir), finished)

    def export_training_set(self, run: RunRef, out_dir: PathLike, *, timeout: float = 600.0, poll: float = 1.0, **options: Any) -> ExportedFiles:
        """A judge training set from an annotate run, downloaded into ``out_dir``; the files' paths.

        ``**options`` are the training-set export's, as ``stepwiser export training-set`` flags name them
        as its schema names them (snake_case or camelCase): ``label_rule`` (e.g. ``{"rule": "abs-q"}``), ``format``
        (``verl``, ``openrlhf``, ``trl``, ``trl-prm``, ``openrlhf-prm``), ``held_out_fraction``, ``seed``, ``min_confidence``, …
        Returns the files' paths, its ``run`` attribute the export run.
        """
        return self.export("training-set", run, out_dir, timeout=timeout, poll=poll, **options)
