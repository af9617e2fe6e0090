"""The python contestant of the edit job: a small change to an ASDF file's tree written back by
python asdf's own update (asdf 2.14: a file opened with mode="rw", then `AsdfFile.update()`),
as a user would make it.

Usage: python3 python_update.py FILE.asdf N

Sets the tree's bench_edit.run to N (adding the bench_edit mapping if the file has none),
appends the history entry "bench run N" and calls update(), which puts the new tree back
into the file and writes whichever blocks python thinks changed. Prints the file's size before
and after ("size BEFORE -> AFTER bytes") so the bench can tell what the update added.
"""

import os
import sys

import asdf


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    path, run = argv[1], int(argv[2])
    before = os.path.getsize(path)
    with asdf.open(path, mode="rw") as af:
        af.tree.setdefault("bench_edit", {})["run"] = run
        af.add_history_entry(f"bench run {run}")
        af.update()
    print(f"size {before} -> {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main(sys.argv)
