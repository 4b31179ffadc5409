"""PyInstaller's entry script, outside the package, so that `doorapp` is imported as a package
(run as a script, a package's own folder would come first on sys.path)."""

import sys

from doorapp.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
