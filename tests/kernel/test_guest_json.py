# SPDX-License-Identifier: GPL-2.0
"""The guest's JSON: the writer (kernel/guest/kjson.c, compiled here with its
test driver, completed by klab's record, klab.record) and a saved guest
document validate against data/shrinklab.schema.json, and a negative clock
sample does not; the model runs at the N the guest really used
(klab.model.model_args).
Run: python3 tests/kernel/test_guest_json.py (make check: Meson test kernel_guest_json)."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import model, record
from klabtest import REPO, fixture
from schema_check import validate

SHRINKLAB = os.path.join(REPO, "build", "shrinklab")


class GuestJson(unittest.TestCase):
    def test_writer_output_validates(self):
        """kjson.c through a driver: escapes, samples, a negative fit."""
        cc = shutil.which("gcc") or shutil.which("cc")
        if not cc:
            self.skipTest("no C compiler")
        guest = os.path.join(REPO, "kernel", "guest")
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "test_kjson")
            subprocess.run([cc, "-Wall", "-Wextra", "-Werror", "-o", exe,
                            os.path.join(guest, "test_kjson.c"), os.path.join(guest, "kjson.c"),
                            "-lm"], check=True)
            out = subprocess.run([exe, "--x", 'a"b'], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout
        doc = json.loads(out)
        # klab adds the record (CPU model, kind, load, host) when it saves a
        # guest's document: the guest's raw output is whole only with it.
        validate(record.stamp(doc, "qemu", record.host(), record.loadavg()))
        self.assertEqual(doc["schema"], "shrinklab/2")
        self.assertEqual(doc["command"][1:], ["--x", 'a"b'])
        self.assertEqual([e["id"] for e in doc["experiments"]], ["units", "drop_caches"])
        self.assertEqual(doc["experiments"][0]["elapsed_ns"], 1500)
        drop = doc["experiments"][1]["results"]
        self.assertEqual(drop[0]["samples"], [3e6, 2.5e6, 2.9e6, 6.4e6, 2.8e6])
        self.assertLess(drop[1]["value"], 0)
        self.assertTrue(drop[0]["timed"])
        self.assertFalse(drop[1]["timed"])

    def test_negative_clock_sample_is_invalid(self):
        doc = fixture("guest-short-mainline.json")
        r = next(x for e in doc["experiments"] for x in e["results"] if x["timed"])
        r["samples"][0] = -1
        with self.assertRaises(Exception):
            validate(doc)

    def test_saved_guest_document_validates(self):
        doc = fixture("guest-short-mainline.json")
        validate(doc)
        self.assertEqual(doc["tool"]["name"], "klab-guest")
        self.assertEqual(doc["machine"]["nodes"], 4)
        for e in doc["experiments"]:
            for r in e["results"]:
                self.assertEqual(r["n"], len(r["samples"]), r["metric"])
                if r["timed"] and r["n"] > 1:
                    self.assertIn(r["value"], sorted(r["samples"]) + [
                        (sorted(r["samples"])[r["n"] // 2 - 1] +
                         sorted(r["samples"])[r["n"] // 2]) / 2])

    def test_model_options_from_the_guest(self):
        """The model runs at the N the guest really used at each step."""
        doc = fixture("guest-short-mainline.json")
        args = model.model_args(SHRINKLAB, doc)
        opt = dict(zip(args[::2], args[1::2]))
        self.assertEqual(opt["--ladder"], "1,12")
        self.assertEqual(opt["--cgroups"], "200")
        self.assertEqual(opt["--top-cgroups"], "200")
        self.assertEqual(opt["--register-cgroups"], "200")
        self.assertEqual(opt["--host-shrinkers"], "22")
        self.assertEqual((opt["--nodes"], opt["--cpus"]), ("4", "2"))
        self.assertEqual((opt["--samples"], opt["--register-samples"]), ("5", "3"))
        doc["command"] = doc["command"][:4]
        with self.assertRaisesRegex(RuntimeError, "lacks --ladder"):
            model.model_args(SHRINKLAB, doc)
        doc = fixture("guest-short-mainline.json")
        doc["experiments"] = [e for e in doc["experiments"] if e["id"] != "register"]
        with self.assertRaisesRegex(RuntimeError, "no register/register_"):
            model.model_args(SHRINKLAB, doc)


if __name__ == "__main__":
    unittest.main()
