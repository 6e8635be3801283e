#!/usr/bin/env bash
# The module arrows: `--write` regenerates the Mermaid diagram in docs/architecture.md from
# dependency-cruiser's view of src/ (so the picture cannot drift from the code); `--mermaid` prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
mermaid() {
  npx --no-install depcruise src --config .dependency-cruiser.cjs --include-only '^src/' --exclude '\.spec\.ts$' \
    --collapse '^src/[^/]+' --output-type mermaid
}
case "${1:-}" in
  --mermaid) mermaid ;;
  --write)
    diagram=$(mermaid)
    python3 - "$diagram" <<'PY'
import re, sys
path = 'docs/architecture.md'
doc = open(path).read()
block = '<!-- generated:mermaid -->\n```mermaid\n' + sys.argv[1].strip() + '\n```\n<!-- /generated:mermaid -->'
doc = re.sub(r'<!-- generated:mermaid -->.*?<!-- /generated:mermaid -->', lambda m: block, doc, flags=re.S)
open(path, 'w').write(doc)
PY
    ;;
  *) echo "usage: $0 --write | --mermaid" >&2; exit 2 ;;
esac
