"""StepWiser Studio's REST API from Python, standard library only.

    >>> import stepwiser
    >>> client = stepwiser.Client()          # STEPWISER_URL and STEPWISER_TOKEN
    >>> run = client.launch("judge", {"datasetId": "…", "judgeEndpoint": "sim-judge-strong", "samples": 2})
    >>> run = client.wait(run["id"])
    >>> predictions = list(client.predictions(run["id"]))
"""

__version__ = "0.1.0"

from .client import FAILED_STATUSES, TERMINAL_STATUSES, Client, ExportedFiles, camel_case, camel_keys  # noqa: E402
from .errors import (  # noqa: E402
    AuthenticationError,
    BadRequestError,
    ConfigError,
    ConflictError,
    ConnectionFailedError,
    IntegrityError,
    MethodNotSupportedError,
    NotFoundError,
    PermissionDeniedError,
    RunFailedError,
    ServiceUnavailableError,
    StepwiserError,
    WaitTimeoutError,
    error_from_response,
)
from .frames import label_rows, to_pandas  # noqa: E402

__all__ = [
    "Client",
    "ExportedFiles",
    "TERMINAL_STATUSES",
    "FAILED_STATUSES",
    "camel_case",
    "camel_keys",
    "label_rows",
    "to_pandas",
    "StepwiserError",
    "ConfigError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "MethodNotSupportedError",
    "ConflictError",
    "ServiceUnavailableError",
    "ConnectionFailedError",
    "RunFailedError",
    "WaitTimeoutError",
    "IntegrityError",
    "error_from_response",
]
