#!/usr/bin/env bash
# Makes a stand-in for docker.io/library/node:24-slim where no registry can be reached: a minimal Debian
# bookworm root from debootstrap, with the Node.js 24 binary of the project's `node` dev dependency, an npm,
# and a `node` user (uid 1000) as the official image has; imported as localhost/benefits-node:24-slim.
#   sudo apt-get install -y debootstrap podman runc && sudo scripts/container-base.sh
#   podman build --format docker --build-arg NODE_IMAGE=localhost/benefits-node:24-slim -t benefits-enrollment-service .
# Needs root (debootstrap, chroot), the Debian mirror, and `npm install` run in the project (for Node 24).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/benefits-node:24-slim}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
NODE_BINARY=${NODE_BINARY:-node_modules/node/bin/node}
NPM_DIRECTORY=${NPM_DIRECTORY:-$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")}

"$NODE_BINARY" -e 'if (Number(process.versions.node.split(".")[0]) < 24) process.exit(1)' || {
  echo "container-base: $NODE_BINARY is not Node.js 24 or newer (run npm install first)" >&2
  exit 1
}
[ -f "$NPM_DIRECTORY/bin/npm-cli.js" ] || { echo "container-base: no npm at $NPM_DIRECTORY" >&2; exit 1; }

root=$(mktemp -d /var/tmp/benefits-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$MIRROR"
install -m 0755 "$NODE_BINARY" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$NPM_DIRECTORY" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin'
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$IMAGE"
echo "container-base: $IMAGE"
