"""The package's build backend: setuptools' own, plus a wheel built without the ``wheel`` package.

setuptools before 70.1 builds wheels through the ``wheel`` package's ``bdist_wheel``
command. Where that package is missing and the build is not isolated
(``pip install --no-build-isolation …``, offline), this backend still builds the
wheel: the metadata comes from setuptools (reading pyproject.toml), and the
wheel — pure Python, ``py3-none-any`` — is written here as the wheel format
(PEP 427) defines it. Everything else is setuptools.build_meta unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import zipfile
from pathlib import Path
from typing import Dict, List, Optional

import setuptools
from setuptools import build_meta as _setuptools

WHEEL_FILE = "Wheel-Version: 1.0\nGenerator: stepwiser_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _check_setuptools() -> None:
    """setuptools reads the [project] table of pyproject.toml from 61 on; an older one would build a nameless package."""
    major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
    if (major, minor) < (61, 0):
        raise RuntimeError(
            f"building stepwiser needs setuptools 61 or newer (it reads pyproject.toml), but this Python has setuptools {setuptools.__version__}: "
            "upgrade it (pip install 'setuptools>=61') or install without --no-build-isolation"
        )


def get_requires_for_build_sdist(config_settings: Optional[Dict] = None) -> List[str]:
    _check_setuptools()
    return _setuptools.get_requires_for_build_sdist(config_settings)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict] = None) -> str:
    _check_setuptools()
    return _setuptools.build_sdist(sdist_directory, config_settings)


def _have_bdist_wheel() -> bool:
    try:
        import wheel.bdist_wheel  # noqa: F401
    except ImportError:
        return False
    return True


def get_requires_for_build_wheel(config_settings: Optional[Dict] = None) -> List[str]:
    _check_setuptools()
    return _setuptools.get_requires_for_build_wheel(config_settings)


def _distribution():
    from setuptools.dist import Distribution

    dist = Distribution()
    dist.parse_config_files()
    return dist


def _dist_info_files(dist) -> Dict[str, bytes]:
    metadata = io.StringIO()
    dist.metadata.write_pkg_file(metadata)
    headers, blank, body = metadata.getvalue().partition("\n\n")
    requires = [f"Requires-Dist: {req}" for req in dist.install_requires or []]
    for extra, reqs in sorted((dist.extras_require or {}).items()):
        requires += [f'Requires-Dist: {req}; extra == "{extra}"' for req in reqs]
    text = "\n".join([headers, *requires]) + (blank + body if blank else "\n")
    top_level = "\n".join(sorted({package.split(".")[0] for package in dist.packages or []})) + "\n"
    return {"METADATA": text.encode("utf-8"), "WHEEL": WHEEL_FILE.encode("utf-8"), "top_level.txt": top_level.encode("utf-8")}


def _dist_info_name(dist) -> str:
    return f"{dist.get_name().replace('-', '_')}-{dist.get_version()}.dist-info"


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict] = None) -> str:
    _check_setuptools()
    if _have_bdist_wheel():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    dist = _distribution()
    name = _dist_info_name(dist)
    folder = Path(metadata_directory) / name
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, content in _dist_info_files(dist).items():
        (folder / file_name).write_bytes(content)
    return name


def _package_files(dist) -> Dict[str, bytes]:
    """Every file of the listed packages (their modules and data, never byte code), by its path in the wheel."""
    files: Dict[str, bytes] = {}
    for package in dist.packages or []:
        root = Path(*package.split("."))
        for path in sorted(root.iterdir()):
            if path.is_file() and path.suffix not in (".pyc", ".pyo"):
                files[path.as_posix()] = path.read_bytes()
    return files


def _record_line(path: str, content: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(content)}"


def build_wheel(wheel_directory: str, config_settings: Optional[Dict] = None, metadata_directory: Optional[str] = None) -> str:
    _check_setuptools()
    if _have_bdist_wheel():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    dist = _distribution()
    info = _dist_info_name(dist)
    entries = dict(_package_files(dist))
    entries.update({f"{info}/{name}": content for name, content in _dist_info_files(dist).items()})
    record = [_record_line(path, content) for path, content in entries.items()] + [f"{info}/RECORD,,"]
    wheel_name = f"{dist.get_name().replace('-', '_')}-{dist.get_version()}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, content in entries.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), content, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return wheel_name
