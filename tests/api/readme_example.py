#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's API example as a source file, so that a test builds it.

  readme_example.py README OUTPUT

Writes the one ```c block of README (the example of "Install and use") to
OUTPUT as it stands; exit 1 when README has no such block or more than one
(the test readme_api_example would otherwise build something else). The
build compiles it with the project's warnings as errors against the public
headers and library, and the test runs it: an example that no longer
compiles, links or runs to exit 0 fails.
"""
import re
import sys


def main():
    readme, output = sys.argv[1:3]
    with open(readme, encoding='utf-8') as f:
        blocks = re.findall(r'^```c\n(.*?)^```$', f.read(), re.S | re.M)
    if len(blocks) != 1:
        print(f'readme_example: {readme} has {len(blocks)} ```c blocks, expected one')
        return 1
    with open(output, 'w', encoding='utf-8') as f:
        f.write('/* Generated from README.md by tests/api/readme_example.py. */\n' + blocks[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
