"""The package as pip installs it, and clients/python/find-python's verdicts
on the python3 it is offered."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIND_PYTHON = os.path.join(HERE, "find-python")


class WheelTest(unittest.TestCase):
    def test_wheel_carries_py_typed(self):
        # PEP 561: without py.typed in the installed package, type checkers
        # ignore berth_client's annotations.
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(HERE, src, ignore=shutil.ignore_patterns(".venv", "__pycache__", "build", "*.egg-info"))
            out = os.path.join(tmp, "dist")
            # setuptools' PEP 517 backend, in a copy: a build writes build/
            # and *.egg-info next to the sources.
            subprocess.run([sys.executable, "-c",
                            "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))", out],
                           cwd=src, check=True, capture_output=True)
            wheels = [f for f in os.listdir(out) if f.endswith(".whl")]
            self.assertEqual(len(wheels), 1, wheels)
            with zipfile.ZipFile(os.path.join(out, wheels[0])) as z:
                names = set(z.namelist())
        for want in ("berth_client/py.typed", "berth_client/session.py", "berth_client/v1/state_service_pb2.py",
                     "berth_client/v1/state_service_pb2.pyi"):
            self.assertIn(want, names)


class FindPythonTest(unittest.TestCase):
    def find(self, python):
        env = dict(os.environ, BERTH_PYTHON=python)
        return subprocess.run([FIND_PYTHON, "--no-install"], env=env, capture_output=True, text=True)

    def test_accepts_a_python_that_runs_the_client(self):
        r = self.find(sys.executable)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), sys.executable)

    def test_says_why_it_rejects(self):
        with tempfile.TemporaryDirectory() as tmp:
            # This python without its site-packages: no grpc, as in a pyenv
            # python that pip never installed grpcio into.
            bare = os.path.join(tmp, "python3")
            with open(bare, "w") as f:
                f.write('#!/bin/sh\nexec %s -S "$@"\n' % sys.executable)
            os.chmod(bare, os.stat(bare).st_mode | stat.S_IXUSR)
            cases = [
                (os.path.join(tmp, "missing"), "rejected %s: not found" % os.path.join(tmp, "missing")),
                (bare, "rejected %s (%s, Python %d.%d.%d): cannot import grpc" % ((bare, bare) + sys.version_info[:3])),
            ]
            for python, want in cases:
                with self.subTest(python=python):
                    r = self.find(python)
                    self.assertEqual(r.returncode, 1)
                    self.assertEqual(r.stdout, "")
                    self.assertIn(want, r.stderr)
                    self.assertIn("$BERTH_PYTHON (%s) cannot run berth_client" % python, r.stderr)

    def test_bad_flag(self):
        r = subprocess.run([FIND_PYTHON, "--install-everything"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: find-python [--no-install]", r.stderr)


if __name__ == "__main__":
    unittest.main()
