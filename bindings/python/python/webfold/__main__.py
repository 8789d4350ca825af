"""The `webfold` command, from the package: `webfold mcp`, `webfold snapshot
page.html`, … exactly as the binary runs them (it is the same code)."""

import os
import shutil
import sys

from . import _webfold


def main() -> None:
    # What the command starts again for itself (the daemon, the browser's
    # native host) must be a program: this script, when it is one.
    me = os.path.abspath(sys.argv[0])
    if not (os.path.isfile(me) and os.access(me, os.X_OK) and not me.endswith(".py")):
        me = shutil.which("webfold") or ""
    if me:
        os.environ.setdefault("WEBFOLD_EXE", me)
    _webfold.cli(["webfold", *sys.argv[1:]])


if __name__ == "__main__":
    main()
