"""`python -m ascend_jit ...`: the `ascend-jit` command line (cli.py), where the scripts folder is not on PATH (port61d
had tried it and met "No module named ascend_jit.__main__"). Importing the module runs nothing (tools that import
every module of the package, pkgutil.walk_packages)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
