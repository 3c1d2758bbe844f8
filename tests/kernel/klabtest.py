# SPDX-License-Identifier: GPL-2.0
"""What the kernel lab's host tests share: the klab package on the path
(kernel/py), the schema checker of tests/cli, the fixtures."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.join(REPO, "kernel", "py"))
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)
