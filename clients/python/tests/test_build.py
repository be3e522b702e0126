"""The build backend's own wheel (the path taken where the wheel package is missing): complete and self-consistent."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from unittest import mock

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "_build"))

import stepwiser_build  # noqa: E402


class OwnWheelTest(unittest.TestCase):
    def build(self, out: str) -> Path:
        cwd = os.getcwd()
        os.chdir(PROJECT)
        try:
            with mock.patch.object(stepwiser_build, "_have_bdist_wheel", return_value=False):
                return Path(out) / stepwiser_build.build_wheel(out)
        finally:
            os.chdir(cwd)

    def test_the_wheel_holds_every_module_and_a_record_of_their_digests(self):
        with tempfile.TemporaryDirectory() as out:
            wheel = self.build(out)
            self.assertEqual(wheel.name, "stepwiser-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(wheel) as archive:
                names = set(archive.namelist())
                sources = {p.relative_to(PROJECT).as_posix() for p in (PROJECT / "stepwiser").iterdir() if p.is_file() and p.suffix != ".pyc"}
                self.assertEqual({n for n in names if n.startswith("stepwiser/")}, sources)
                self.assertIn("stepwiser/py.typed", names)
                info = "stepwiser-0.1.0.dist-info"
                metadata = archive.read(f"{info}/METADATA").decode()
                self.assertIn("Name: stepwiser\n", metadata)
                self.assertIn("Requires-Python: >=3.9\n", metadata)
                self.assertIn('Requires-Dist: pandas; extra == "pandas"\n', metadata)
                self.assertIn("Root-Is-Purelib: true", archive.read(f"{info}/WHEEL").decode())
                record = [line.split(",") for line in archive.read(f"{info}/RECORD").decode().splitlines()]
                self.assertEqual({path for path, _, _ in record}, names)
                for path, digest, size in record:
                    if path.endswith("RECORD"):
                        self.assertEqual((digest, size), ("", ""))
                        continue
                    content = archive.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
                    self.assertEqual((digest, int(size)), (f"sha256={expected}", len(content)), path)


if __name__ == "__main__":
    unittest.main()
