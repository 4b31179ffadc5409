#!/usr/bin/env bash
# Build the one-file executable dist/door (dist/door.exe on Windows) from door.spec.
#   build/build.sh            uses .venv (created by ./dev) and installs the pinned PyInstaller into it
# Work files go to build/work/ (ignored by git); the result is dist/door.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
[ -x "$venv/bin/python" ] || ./dev help >/dev/null 2>&1 || true  # ./dev creates .venv on first use
"$venv/bin/pip" install --quiet --disable-pip-version-check -e '.[build]'
started=$SECONDS
"$venv/bin/pyinstaller" --noconfirm --clean --log-level WARN --distpath dist --workpath build/work door.spec
echo "Built dist/door: $(du -h dist/door | cut -f1), $((SECONDS - started)) s; $(dist/door --version)"
