#!/usr/bin/env bash
# The embedding program (.embedding-app.ts) against each xstate version agentchart supports at the
# edges: the lowest of the peer range (package.json peerDependencies.xstate, "^5.33.0" → 5.33.0) and
# the pinned dev version (devDependencies.xstate). For each, in a fresh folder outside the repository:
# npm install the packed tarball + xstate@<version> exactly (and this folder's package.json: zod,
# typescript, @types/node, exact), type-check and compile it with tsc (strict, NodeNext, skipLibCheck
# off: agentchart's .d.ts must fit this xstate's types), run it with node. Every version runs; exits
# non-zero naming the versions that failed. Needs the npm registry (or a warm npm cache). A version
# outside the peer range fails at npm install (ERESOLVE).
#
#   bash test/xstate-peer/run.sh [agentchart-x.y.z.tgz]   # without a tarball: npm pack (builds through prepack)
#   XSTATE_VERSIONS="5.30.0 5.33.3" bash test/xstate-peer/run.sh   # other versions
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/agentchart-xstate-peer.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [[ $# -ge 1 ]]; then
  tarball="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  [[ -f "$tarball" ]] || { echo "xstate-peer: no tarball at $1" >&2; exit 1; }
else
  echo "xstate-peer: npm pack (builds the package)"
  (cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
  tarball="$(ls "$work"/agentchart-*.tgz)"
fi

if [[ -z "${XSTATE_VERSIONS:-}" ]]; then
  XSTATE_VERSIONS="$(node -e '
    const pkg = require(process.argv[1]);
    const range = pkg.peerDependencies.xstate, pinned = pkg.devDependencies.xstate;
    const lowest = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
    if (!lowest) throw new Error(`peerDependencies.xstate is "${range}", expected ^x.y.z`);
    if (!/^\d+\.\d+\.\d+$/.test(pinned)) throw new Error(`devDependencies.xstate is "${pinned}", expected an exact version`);
    console.log(lowest === pinned ? lowest : `${lowest} ${pinned}`);
  ' "$repo/package.json")"
fi

# Runs "$@" in the app's folder; on failure prints its output and the step, naming the version.
step() {
  local what="$1"
  shift
  if ! (cd "$app" && "$@") >"$app/step.log" 2>&1; then
    cat "$app/step.log" >&2
    echo "xstate-peer: FAILED with xstate@$version: $what" >&2
    return 1
  fi
}

echo "xstate-peer: $(basename "$tarball") against xstate $XSTATE_VERSIONS"
failed=()
for version in $XSTATE_VERSIONS; do
  started=$SECONDS
  app="$work/xstate-$version"
  mkdir "$app"
  cp "$here/package.json" "$here/tsconfig.json" "$app/"
  cp "$here/.embedding-app.ts" "$app/embedding-app.ts"
  if step "npm install" npm install --no-audit --no-fund --save-exact "$tarball" "xstate@$version" &&
    step "the installed xstate is $version" node -e '
      const { version } = require(process.argv[1]);
      if (version !== process.argv[2]) throw new Error(`npm installed xstate ${version}`);
    ' "$app/node_modules/xstate/package.json" "$version" &&
    step "type-check and compile (tsc -p ., strict)" node node_modules/typescript/bin/tsc -p . &&
    step "run (node out/embedding-app.js)" node out/embedding-app.js; then
    echo "xstate $version: $(cat "$app/step.log") ($((SECONDS - started)) s)"
  else
    failed+=("$version")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "xstate-peer: FAILED with xstate ${failed[*]} (see above)" >&2
  exit 1
fi
