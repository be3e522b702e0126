"""The exceptions the client raises.

Every refusal of the API is a JSON body ``{"error": {"code", "message", "field"?}}``
with the HTTP status of its code; :func:`error_from_response` turns it into the
:class:`StepwiserError` subclass of that status.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional, Type


class StepwiserError(Exception):
    """The API refused or failed a request, or the client could not use its answer.

    Attributes:
        status: the HTTP status (0 when the server could not be reached or did not answer HTTP).
        code: the API's error code, e.g. ``BAD_REQUEST`` or ``NOT_FOUND``.
        message: what is wrong, as the API says it.
        field: where in the input, when one field is wrong (a query parameter,
            path parameter or dotted body field such as ``config.samples``).
        method, path: the request that was refused, when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: Optional[str] = None,
        field: Optional[str] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.method = method
        self.path = path
        super().__init__(self._describe())

    def _describe(self) -> str:
        where = f"{self.method} {self.path}: " if self.method and self.path else ""
        if not self.status:
            return f"{where}{self.message}"
        field = f' (field "{self.field}")' if self.field else ""
        return f"{where}HTTP {self.status} {self.code}: {self.message}{field}"


class ConfigError(StepwiserError, ValueError):
    """The client cannot be made: its URL or token is missing or malformed."""


class BadRequestError(StepwiserError):
    """400: the input is wrong; ``field`` names where."""


class AuthenticationError(StepwiserError):
    """401: no token, or an unknown, revoked or expired one."""


class PermissionDeniedError(StepwiserError):
    """403: the token's owner lacks the capability, or the token is read-only."""


class NotFoundError(StepwiserError):
    """404: no such run, dataset, file or operation."""


class MethodNotSupportedError(StepwiserError):
    """405: the path exists, not with this method."""


class ConflictError(StepwiserError):
    """409: the request conflicts with the current state (e.g. the files of an export that has not completed)."""


class ServiceUnavailableError(StepwiserError):
    """503: the server cannot serve the request now."""


class ConnectionFailedError(StepwiserError):
    """The server could not be reached, or its answer was cut off."""


class RunFailedError(StepwiserError):
    """A run the client waited for ended failed or cancelled; ``run`` is its last state."""

    def __init__(self, run: Mapping[str, Any]) -> None:
        self.run = dict(run)
        reason = run.get("error") or "no error was recorded"
        super().__init__(f'run {run.get("id")} ({run.get("kind")}) ended {run.get("status")}: {reason}')


class WaitTimeoutError(StepwiserError, TimeoutError):
    """A run did not end within the time waited; ``run`` is its last state."""

    def __init__(self, run: Mapping[str, Any], timeout: float) -> None:
        self.run = dict(run)
        self.timeout = timeout
        error = f" (error: {run['error']})" if run.get("error") else ""
        super().__init__(
            f'run {run.get("id")} ({run.get("kind")}) is still {run.get("status")} after {timeout:g} s: '
            f'{run.get("unitsDone", 0)}/{run.get("unitsTotal", 0)} units done{error}'
        )


class IntegrityError(StepwiserError):
    """A downloaded file does not match the size or SHA-256 the API stated for it."""


ERRORS_BY_STATUS: Dict[int, Type[StepwiserError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: MethodNotSupportedError,
    409: ConflictError,
    503: ServiceUnavailableError,
}


def error_from_response(status: int, body: bytes, *, method: str, path: str, reason: str = "") -> StepwiserError:
    """The exception for a refused request: its status's class, with the API's code, message and field.

    A body that is not the API's error JSON (a proxy's HTML page, say) keeps its
    first 300 characters as the message, with the code ``HTTP_ERROR``.
    """
    text = body.decode("utf-8", "replace")
    code: Optional[str] = None
    message: Optional[str] = None
    field: Optional[str] = None
    try:
        detail = json.loads(text)["error"]
        if isinstance(detail, dict):
            code = detail.get("code") if isinstance(detail.get("code"), str) else None
            message = detail.get("message") if isinstance(detail.get("message"), str) else None
            field = detail.get("field") if isinstance(detail.get("field"), str) else None
    except (ValueError, KeyError, TypeError):
        pass
    if code is None or message is None:
        code = code or "HTTP_ERROR"
        message = message or (" ".join(text.split())[:300] or reason or f"HTTP {status}")
    cls = ERRORS_BY_STATUS.get(status, StepwiserError)
    return cls(message, status=status, code=code, field=field, method=method, path=path)
