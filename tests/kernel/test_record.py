# SPDX-License-Identifier: GPL-2.0
"""klab.record, the record every result document carries (CPU model, kind
of machine, load at the start and the end; the host's facts, its kernel
among them, under machine.host):
  - the schema requires each of them, in a guest's document and in
    shrinklab's: a document without any one does not validate;
  - the guest's raw output (what a guest writes, before klab saves it)
    does not validate; klab lab, klab reproduce and klab work save each
    guest's document with the record, which then does (fake boots that
    answer the raw output);
  - loadavg() reads the three averages, None when unreadable; the host's
    kind follows shrinklab's words;
  - load_words() gives the range of the 1-minute load over documents'
    starts and ends, and says so when none recorded one.
Run: python3 tests/kernel/test_record.py (make check: Meson test kernel_record)."""
import copy
import json
import os
import tempfile
import unittest

import jsonschema

import klabtest  # noqa: F401  (the klab package on the path)
from klab import boot, compare, record, reproduce, run, workloads
from klab.commands import lab
from klabtest import fixture
from schema_check import validate

RECORD = ("cpu_model", "kind", "load_start", "load_end")


def raw(doc):
    """@doc as its guest wrote it: without what klab adds when it saves it."""
    doc = copy.deepcopy(doc)
    for k in RECORD + ("host", "clock", "machine"):
        doc["machine"].pop(k, None)
    return doc


class Required(unittest.TestCase):
    def test_each_field_is_required_in_both_worlds(self):
        for name in ("guest-short-mainline.json", "work-short-mainline.json",
                     "model-short-prealloc.json"):
            doc = fixture(name)
            validate(doc)
            for k in RECORD:
                d = copy.deepcopy(doc)
                del d["machine"][k]
                with self.assertRaisesRegex(jsonschema.ValidationError, k, msg=(name, k)):
                    validate(d)

    def test_a_guest_document_needs_its_host(self):
        doc = fixture("guest-short-mainline.json")
        for k in ("cpu_model", "kind", "kernel"):
            d = copy.deepcopy(doc)
            del d["machine"]["host"][k]
            with self.assertRaisesRegex(jsonschema.ValidationError, k):
                validate(d)
        del doc["machine"]["host"]
        with self.assertRaisesRegex(jsonschema.ValidationError, "host"):
            validate(doc)

    def test_the_guests_raw_output_does_not_validate(self):
        with self.assertRaises(jsonschema.ValidationError):
            validate(raw(fixture("guest-short-mainline.json")))


class Saved(unittest.TestCase):
    """Each command's boots, faked: the guest answers its raw output, the
    document klab saves carries the record and validates."""

    def fake(self, module, answer, call):
        def fake_boot(r, label, spec):
            res = boot.BootResult(status=0, stdout=json.dumps(answer), accel="tcg", wall=1.0,
                                  machine=spec.machine)
            res.clock = boot.clock_words(spec.clock, "tcg")
            return res
        real = module.checked_boot
        module.checked_boot = fake_boot
        try:
            with tempfile.TemporaryDirectory() as tmp:
                docs = call(run.Run(tmp))
                saved = [compare.load(os.path.join(tmp, n)) for n in sorted(os.listdir(tmp))
                         if n.endswith(".json")]
        finally:
            module.checked_boot = real
        self.assertTrue(docs)
        self.assertEqual(len(saved), len(docs))
        for d in saved:
            validate(d)
            m = d["machine"]
            self.assertIn(m["kind"], ("UML", "QEMU"))
            self.assertEqual(m["cpu_model"], m["host"]["cpu_model"])
            for k in ("load_start", "load_end"):
                self.assertTrue(m[k] is None or len(m[k]) == 3, m[k])
            self.assertTrue(m["host"]["kernel"])
        return saved

    class D:
        name = "mainline"
        dir = None

        def series_hash(self):
            return "0123"

    def test_klab_lab(self):
        answer = raw(fixture("guest-short-mainline.json"))
        saved = self.fake(lab, answer, lambda r: lab.lab_boots(
            r, [self.D()], {"mainline": "bz"}, "prog", "short", 1, "icount", "uml"))
        self.assertEqual(saved[0]["machine"]["kind"], "UML")

    def test_klab_reproduce(self):
        answer = raw(fixture("guest-short-mainline.json"))
        saved = self.fake(reproduce, answer, lambda r: reproduce.guest_docs(
            r, "pods", [self.D()], {"mainline": "bz"}, {"kwork": "prog"}, "short", 1,
            "icount")["mainline"])
        self.assertEqual(saved[0]["machine"]["kind"], "QEMU")

    def test_klab_work(self):
        saved = fixture("work-short-mainline.json")
        answer = raw(dict(saved, experiments=[e for e in saved["experiments"]
                                              if e["id"] == "pods"]))
        self.fake(workloads, answer, lambda r: workloads.work_boots(
            r, [self.D()], {"mainline": "bz"}, "kwork", "short", 1, ["pods"]))


class Facts(unittest.TestCase):
    def test_loadavg(self):
        with tempfile.NamedTemporaryFile("w", suffix=".loadavg") as f:
            f.write("0.50 1.25 2.00 3/400 1234\n")
            f.flush()
            self.assertEqual(record.loadavg(f.name), [0.5, 1.25, 2.0])
        self.assertIsNone(record.loadavg("/nonexistent/loadavg"))

    def test_load_words_spans_every_boot(self):
        docs = [{"machine": {"load_start": [3.5, 1, 1], "load_end": [12.25, 1, 1]}},
                {"machine": {"load_start": [2.0, 9, 9], "load_end": None}},
                {"machine": {}}]
        self.assertEqual(record.load_words(docs), "host load 2.0-12.2 (1-minute average at "
                         "each boot's start and end)")
        self.assertEqual(record.load_words([{"machine": {}}]), "host load not recorded")

    def test_host(self):
        h = record.host()
        self.assertGreaterEqual(h["cpus"], 1)
        self.assertTrue(h["kernel"].startswith(os.uname().sysname))
        self.assertTrue(h["kind"] in ("native", "UML", "QEMU")
                        or h["kind"].startswith("virtual machine ("), h["kind"])


if __name__ == "__main__":
    unittest.main()
