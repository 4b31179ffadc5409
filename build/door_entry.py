"""PyInstaller's entry script, outside the package, so that `doorapp` is imported as a package (STYLE 11)."""

import sys

from doorapp.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
